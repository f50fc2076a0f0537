"""The review page (`refinery review serve`): a local web app over one review queue.

- `page`: what the page shows (items under the filters, progress, one item), as plain data;
- `actions`: what its requests do: the live check of an edit and recording a decision;
- `app`: the FastAPI app (routes, token, CSRF, security headers) and `serve`;
- `templates/`, `static/`: the page's HTML, its one script and its style sheet (no build step).

Only `app` imports FastAPI, Jinja2 and uvicorn, so the other review commands never load them.
"""
