"""A stand-in for a busy llama.cpp server: ``python -m tests.llm.slow_models_server PORT DELAY`` answers
``GET /v1/models`` with 200 after DELAY seconds, as a server busy with a long generation answers late."""

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main() -> None:
    port, delay = int(sys.argv[1]), float(sys.argv[2])

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

        def do_GET(self) -> None:
            time.sleep(delay)
            body = json.dumps({"object": "list", "data": [{"id": "gemma-3-270m", "object": "model"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
