"""Tools that read an application without serving it: ``explain`` (one request's compiled
path), ``typegen`` (``TypedDict`` classes from JSON Schemas), the route and plugin trees, and
``contract`` (the API's contract file and the breaking-change check)."""
