"""Tools that read an application without serving it: ``explain`` (one request's compiled
path), ``typegen`` (``TypedDict`` classes from JSON Schemas) and the route and plugin trees."""
