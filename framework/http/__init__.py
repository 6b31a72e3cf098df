"""The wire, framework-free: status texts, media types, body reading, JSON, reply header
rules, cookies and proxy headers. It imports nothing of the framework but ``errors``."""
