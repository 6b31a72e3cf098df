"""One request, start to answer: the compiled route, the request and the reply, the hooks,
body parsing, input validation, response serialization, the error chain, streaming and
files, and the request log. A route's entry (``framework.lifecycle.entry``), one function
emitted from the compiled route, is the whole path.

Inside, the modules use each other in one direction, bottom to top: ``request_log``,
``drift``; ``request``; ``hooks``, ``streaming``, ``files``, ``content_types``; ``reply``;
``error_handling``, ``body_parsing``, ``inputs``, ``responses``; ``negotiation``,
``entry``; ``compiled_route``. A lower module reads what it needs of a higher object through a ``Protocol`` it
defines (``request.RequestRoute``, ``reply.ReplyRoute``, ``streaming.StreamedReply``...),
and the reply reaches the error chain through the functions its compiled route carries."""
