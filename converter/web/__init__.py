"""``wawkit serve``: the three jobs in a browser, and a JSON API under ``/api/v1`` for bots.

The stack is Starlette on uvicorn: a small, well-kept ASGI toolkit (routing, requests,
responses, multipart uploads through python-multipart, a test client) and the reference
ASGI server, with no ORM, template engine or build step to carry. FastAPI would add
pydantic models for what the converter already types and validates itself.

The web layer only moves bytes: every upload is written to its session's private folder
(``tempfile.mkdtemp``, mode 0700) under a fixed name and read back through the same
bounded readers and hardened loaders as a file named on the command line; every answer
comes from the converter and the referee (``converter.resolve``, ``converter.validate``,
``converter.scenario``, ``referee.combat_odds``). No rule is decided here.

Only the local user who started the server can drive it: it binds 127.0.0.1, every
request needs the random token printed with the URL (once as ``?token=``, then an
HttpOnly SameSite=Strict cookie, or ``Authorization: Bearer`` for the API), and the Host
header must name 127.0.0.1 or localhost with the server's port (a DNS-rebinding page
cannot pass it).
"""
