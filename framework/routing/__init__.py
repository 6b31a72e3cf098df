"""Which route answers a request: the router (a dict per method for static paths, a
segment tree for the rest)."""
