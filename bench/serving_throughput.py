#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Throughput and latency of Kiln's two servers (docs/serving.md, "Measured"): Ray Serve
(kiln.serve, HTTP JSON with base64 tensors) and KServe (kiln.kserve_model: REST with the Open
Inference Protocol's binary tensor extension, and its gRPC service with raw tensor bytes), each
serving the same model on this machine:

    .venv-serve/bin/python bench/serving_throughput.py                  # all three, MobileNetV2
    .venv-serve/bin/python bench/serving_throughput.py --server kserve --requests 400 \
        --clients 16 --max-batch-size 8 --model build/models/mobilenetv2.onnx

For each server: the server starts on a free 127.0.0.1 port (Ray: a local 2-CPU cluster in this
process, one replica), then a client in its own process sends --warmup requests, then
--requests requests of one sample each from --clients threads (one keep-alive connection each;
one shared gRPC channel)
and times every one; the server's batch statistics are read back and the server stopped.
Prints one Markdown row per server (requests/s, p50/p99 latency in ms, failed requests, batches)
and the load average before and after (numbers taken while the machine is busy are not valid).
Inputs: seeded standard-normal float32 tensors of the model's first input (single-input float32
models; a dynamic dim is taken as 1). Exit status 0 when it ran, 1 when a server failed.
"""
import argparse
import base64
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- the client (its own process) ------------------------------------------------------------

def grpc_client(port):
    """(stub, its protobuf module) for KServe's v2 gRPC service on 127.0.0.1:port."""
    import grpc
    from kserve.protocol.grpc import grpc_predict_v2_pb2 as pb
    from kserve.protocol.grpc import grpc_predict_v2_pb2_grpc as pb_grpc
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")  # thread-safe, shared by the clients
    return pb_grpc.GRPCInferenceServiceStub(channel), pb


def client_main(args):
    """Sends the load and prints one JSON line: latencies, failures, seconds."""
    host, port = "127.0.0.1", args.port
    if args.protocol == "kserve-grpc":
        stub, pb = grpc_client(port)
        meta = stub.ModelMetadata(pb.ModelMetadataRequest(name=args.meta_path), timeout=60)
        first = {"name": meta.inputs[0].name, "shape": list(meta.inputs[0].shape)}
    else:
        conn = http.client.HTTPConnection(host, port, timeout=300)
        conn.request("GET", args.meta_path)
        first = json.loads(conn.getresponse().read())["inputs"][0]
        conn.close()
    name = first["name"]
    shape = [1 if d < 0 else d for d in first["shape"]]
    rng = np.random.default_rng(0)
    pool = [rng.standard_normal(shape, dtype=np.float32) for _ in range(16)]

    def body(i):
        x = pool[i % len(pool)]
        if args.protocol == "kserve-grpc":
            return pb.ModelInferRequest(
                model_name=args.meta_path,
                inputs=[pb.ModelInferRequest.InferInputTensor(name=name, datatype="FP32",
                                                              shape=list(x.shape))],
                raw_input_contents=[x.tobytes()]), None
        if args.protocol == "ray":
            tensor = {"b64": base64.b64encode(x.tobytes()).decode(), "dtype": "float32",
                      "shape": list(x.shape)}
            return json.dumps({"inputs": {name: tensor}}).encode(), {
                "Content-Type": "application/json"}
        head = json.dumps({"inputs": [{"name": name, "shape": list(x.shape), "datatype": "FP32",
                                       "parameters": {"binary_data_size": x.nbytes}}],
                           "parameters": {"binary_data_output": True}}).encode()
        return head + x.tobytes(), {"Content-Type": "application/octet-stream",
                                    "Inference-Header-Content-Length": str(len(head))}

    bodies = [body(i) for i in range(len(pool))]
    local = threading.local()
    lock = threading.Lock()
    latencies, failures = [], []

    def send(i, record):
        data, headers = bodies[i % len(bodies)]
        start = time.perf_counter()
        if args.protocol == "kserve-grpc":
            try:
                r = stub.ModelInfer(data, timeout=300)
                ok = len(r.outputs) > 0
            except Exception as e:  # noqa: BLE001  (grpc.RpcError: counted as a failure)
                ok, r = False, e
        else:
            if not hasattr(local, "conn"):
                local.conn = http.client.HTTPConnection(host, port, timeout=300)
            try:
                local.conn.request("POST", args.infer_path, body=data, headers=headers)
                r = local.conn.getresponse()
                r.read()
                ok = r.status == 200
            except (OSError, http.client.HTTPException) as e:
                local.conn = http.client.HTTPConnection(host, port, timeout=300)
                ok, r = False, e
        elapsed = time.perf_counter() - start
        if record:
            with lock:
                (latencies if ok else failures).append(
                    elapsed if ok else getattr(r, "status", repr(r)))

    def run(count, record):
        counter = iter(range(count))

        def worker():
            while True:
                with lock:
                    i = next(counter, None)
                if i is None:
                    return
                send(i, record)
        threads = [threading.Thread(target=worker) for _ in range(args.clients)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - start

    run(args.warmup, False)
    seconds = run(args.requests, True)
    ms = np.array(latencies) * 1000 if latencies else np.array([np.nan])
    print(json.dumps({"requests": args.requests, "ok": len(latencies),
                      "failures": len(failures), "seconds": seconds,
                      "throughput": len(latencies) / seconds,
                      "p50_ms": float(np.percentile(ms, 50)),
                      "p99_ms": float(np.percentile(ms, 99)),
                      "mean_ms": float(ms.mean()), "input_shape": shape}))


def run_client(args, protocol, port, meta_path, infer_path):
    cmd = [sys.executable, os.path.abspath(__file__), "--client", protocol, "--port", str(port),
           "--meta-path", meta_path, "--infer-path", infer_path,
           "--requests", str(args.requests), "--clients", str(args.clients),
           "--warmup", str(args.warmup)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---- the servers -----------------------------------------------------------------------------

def bench_ray(args, env):
    os.environ.update(env)
    import ray
    from ray import serve

    import kiln.serve
    temp = tempfile.mkdtemp(prefix="kiln-ray-")
    port = free_port()
    ray.init(address="local", num_cpus=2, include_dashboard=False, _temp_dir=temp,
             log_to_driver=False, configure_logging=False)
    try:
        serve.start(http_options={"host": "127.0.0.1", "port": port})
        serve.run(kiln.serve.build_app(args.model, name="kiln",
                                       max_batch_size=args.max_batch_size,
                                       batch_wait_timeout_s=args.batch_wait_timeout_s),
                  name="kiln", route_prefix="/kiln")
        result = run_client(args, "ray", port, "/kiln", "/kiln")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/kiln/stats")
        result["stats"] = json.loads(conn.getresponse().read())
        conn.close()
    finally:
        serve.shutdown()
        ray.shutdown()
        subprocess.run(["rm", "-rf", temp], check=False)
    return result


def bench_kserve(args, env, grpc=False):
    """KServe's server process; the client speaks REST with the binary tensor extension, or
    (grpc) the v2 gRPC service with raw tensor bytes."""
    port = free_port()
    grpc_port = free_port() if grpc else None
    grpc_args = ["--enable_grpc", "true", "--grpc_port", str(grpc_port)] if grpc else [
        "--enable_grpc", "false"]
    log = tempfile.NamedTemporaryFile(prefix="kiln-kserve-", suffix=".log", delete=False)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kiln.kserve_model", "--model_name", "kiln", "--model_path",
         args.model, "--http_host", "127.0.0.1", "--http_port", str(port), *grpc_args,
         "--enable_latency_logging", "false", "--max_batch_size",
         str(args.max_batch_size), "--batch_wait_timeout_s", str(args.batch_wait_timeout_s)],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **env})
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the KServe server did not start; log: " + log.name)
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/v2/models/kiln/ready")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            time.sleep(0.3)
        if grpc:
            result = run_client(args, "kserve-grpc", grpc_port, "kiln", "")
        else:
            result = run_client(args, "kserve", port, "/v2/models/kiln", "/v2/models/kiln/infer")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
    with open(log.name, encoding="utf-8", errors="replace") as f:
        for line in f:
            if "kiln: kiln served " in line:
                result["stats"] = json.loads(line.split(" served ", 1)[1])
    os.unlink(log.name)
    return result


def row(server, args, r):
    stats = r.get("stats", {})
    batches = stats.get("batches", 0)
    mean = stats.get("requests", 0) / batches if batches else float("nan")
    model = os.path.relpath(args.model, ROOT) if args.model.startswith(ROOT) else args.model
    return (f"| {server} | {model} | {r['requests']} | {args.clients} | "
            f"{args.max_batch_size} | {r['throughput']:.1f} | {r['p50_ms']:.1f} | "
            f"{r['p99_ms']:.1f} | {r['failures']} | {mean:.2f} |")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--server", choices=("ray", "kserve", "kserve-grpc", "all"), default="all")
    p.add_argument("--model", default=os.path.join(ROOT, "build", "models", "mobilenetv2.onnx"))
    p.add_argument("--build", default=os.path.join(ROOT, "build", "release"),
                   help="the build tree whose python/ has acl and kiln")
    p.add_argument("--requests", type=int, default=400)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--warmup", type=int, default=32)
    p.add_argument("--max-batch-size", type=int, default=8)
    p.add_argument("--batch-wait-timeout-s", type=float, default=0.005)
    p.add_argument("--client", choices=("ray", "kserve", "kserve-grpc"), help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--meta-path", help=argparse.SUPPRESS)
    p.add_argument("--infer-path", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.client:
        args.protocol = args.client
        return client_main(args)
    args.model = os.path.abspath(args.model)
    if not os.path.exists(args.model):
        sys.exit(f"{args.model} is missing (scripts/gen_models.py --out build/models "
                 "--only mobilenetv2 makes MobileNetV2)")
    python_dir = os.path.join(args.build, "python")
    sys.path.insert(0, python_dir)
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [python_dir,
                                                       os.environ.get("PYTHONPATH")])),
           "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0",
           "RAY_AUTH_MODE": "disabled"}
    before = os.getloadavg()
    print(f"load average before: {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}", flush=True)
    print("| server | model | requests | clients | max batch | requests/s | p50 ms | p99 ms | "
          "failed | mean batch |")
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    status = 0
    servers = ("ray", "kserve", "kserve-grpc") if args.server == "all" else (args.server,)
    for server in servers:
        try:
            if server == "ray":
                r = bench_ray(args, env)
            else:
                r = bench_kserve(args, env, grpc=server == "kserve-grpc")
            print(row(server, args, r), flush=True)
            status |= r["failures"] > 0
        except Exception as e:  # noqa: BLE001  (the other server still runs)
            print(f"| {server} | failed: {e} |", flush=True)
            status = 1
    after = os.getloadavg()
    print(f"load average after: {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}")
    return status


if __name__ == "__main__":
    sys.exit(main())
