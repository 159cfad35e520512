"""An OTLP/HTTP receiver for airlock's telemetry tests.

Listens on 127.0.0.1 (a free port, written to PORT_FILE once listening), decodes each
POST to /v1/traces, /v1/metrics and /v1/logs with OpenTelemetry's protobuf definitions
(ExportTraceServiceRequest, ExportMetricsServiceRequest, ExportLogsServiceRequest) and
appends it as one JSON line to OUT_DIR/traces.jsonl, metrics.jsonl or logs.jsonl.

Usage: receiver.py PORT_FILE OUT_DIR [answer|stall]. With `stall` it accepts every
connection, reads the request and never answers (a collector that hangs).
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

SIGNALS = {
    "/v1/traces": ("traces", trace_service_pb2.ExportTraceServiceRequest, trace_service_pb2.ExportTraceServiceResponse),
    "/v1/metrics": (
        "metrics",
        metrics_service_pb2.ExportMetricsServiceRequest,
        metrics_service_pb2.ExportMetricsServiceResponse,
    ),
    "/v1/logs": ("logs", logs_service_pb2.ExportLogsServiceRequest, logs_service_pb2.ExportLogsServiceResponse),
}

LOCK = threading.Lock()


def main():
    port_file, out_dir = sys.argv[1], sys.argv[2]
    stall = len(sys.argv) > 3 and sys.argv[3] == "stall"

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if stall:
                time.sleep(3600)
                return
            signal = SIGNALS.get(self.path)
            if signal is None:
                self.send_error(404)
                return
            name, request_type, response_type = signal
            if self.headers.get("Content-Type") != "application/x-protobuf":
                self.send_error(415)
                return
            request = request_type()
            request.ParseFromString(body)
            line = json.dumps(MessageToDict(request, preserving_proto_field_name=True))
            with LOCK, open(os.path.join(out_dir, name + ".jsonl"), "a") as out:
                out.write(line + "\n")
            answer = response_type().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    tmp = port_file + ".tmp"
    with open(tmp, "w") as out:
        out.write(str(server.server_address[1]))
    os.rename(tmp, port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
