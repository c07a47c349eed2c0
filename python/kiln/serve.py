# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""kiln.serve: a Kiln model behind Ray Serve, with dynamic batching (docs/serving.md).

    from ray import serve
    from kiln.serve import build_app
    handle = serve.run(build_app("mobilenetv2.onnx", max_batch_size=8), route_prefix="/mnv2")
    out = handle.remote({"input": image}).result()        # {"logits": ndarray}
    # or: POST /mnv2 {"inputs": {"input": [[...]]}}  ->  {"outputs": {"logits": [[...]]}}

Each replica loads the model once (kiln.InferenceSession for an .onnx, kiln.Model for an .om)
on its own device, and Ray Serve's @serve.batch gathers concurrent requests: their samples are
concatenated along the batch axis and run as one execution, then split back. The part without
Ray (kiln.serve_runner: validation, batching plans, the JSON encoding, statistics) is shared
with the KServe server (kiln.kserve_model); its names are re-exported here.

Ray is imported only when the deployment is built (build_app, KilnDeployment): `import kiln`
and `import kiln.serve` work without it.
"""

import asyncio
import concurrent.futures
import os

from kiln.serve_runner import (DEFAULT_BATCH_WAIT_TIMEOUT_S, DEFAULT_MAX_BATCH_SIZE,  # noqa: F401
                               ModelRunner, ServeError, _bad, decode_inputs, encode_outputs)

_deployment_class = None


def _make_deployment_class():
    """The Ray Serve deployment class, built at first use so that Ray is imported only then."""
    global _deployment_class
    if _deployment_class is not None:
        return _deployment_class
    from ray import serve
    from starlette.requests import Request
    from starlette.responses import JSONResponse

    class KilnDeployment:
        """One replica: a ModelRunner on this process's device, @serve.batch in front of it.

        Called through a deployment handle with {input name: ndarray} (returns {output name:
        ndarray}; a failure raises ServeError), or over HTTP: POST {"inputs": ...} (see
        decode_inputs), GET for the metadata, GET .../stats for the batch statistics.
        """

        def __init__(self, model_path, device=None, compile_options=None,
                     max_batch_size=DEFAULT_MAX_BATCH_SIZE,
                     batch_wait_timeout_s=DEFAULT_BATCH_WAIT_TIMEOUT_S, batch_mode="auto",
                     name=None, cache=True):
            self.runner = ModelRunner(model_path, device, compile_options, batch_mode, cache,
                                      name)
            # One model execution at a time, off the event loop: the next batch gathers while
            # this one runs.
            self._pool = concurrent.futures.ThreadPoolExecutor(1, "kiln-serve")
            self._batching = {}
            self.reconfigure({"max_batch_size": max_batch_size,
                              "batch_wait_timeout_s": batch_wait_timeout_s})

        def reconfigure(self, config):
            """Ray's user_config: max_batch_size and batch_wait_timeout_s, changeable live."""
            config = config or {}
            if "max_batch_size" in config:
                self._batching["max_batch_size"] = int(config["max_batch_size"])
                self._batched.set_max_batch_size(self._batching["max_batch_size"])
            if "batch_wait_timeout_s" in config:
                self._batching["batch_wait_timeout_s"] = float(config["batch_wait_timeout_s"])
                self._batched.set_batch_wait_timeout_s(self._batching["batch_wait_timeout_s"])

        @serve.batch(max_batch_size=DEFAULT_MAX_BATCH_SIZE,
                     batch_wait_timeout_s=DEFAULT_BATCH_WAIT_TIMEOUT_S)
        async def _batched(self, samples):
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._pool, self.runner.run, samples)

        async def infer(self, payload):
            """{input name: array} -> {output name: ndarray}; raises ServeError."""
            result = await self._batched(self.runner.prepare(payload))
            if isinstance(result, ServeError):
                raise result
            return result

        def metadata(self):
            meta = self.runner.metadata()
            meta.update(self._batching)
            return meta

        def stats(self):
            return self.runner.stats()

        async def __call__(self, request):
            if not isinstance(request, Request):
                return await self.infer(request)
            path = request.url.path.rstrip("/")
            try:
                if request.method == "GET":
                    if path.endswith("/stats"):
                        return JSONResponse(self.runner.stats())
                    return JSONResponse(self.metadata())
                if request.method != "POST":
                    raise ServeError(405, f"{request.method} is not served: GET or POST")
                try:
                    body = await request.json()
                except ValueError as e:
                    raise _bad(f"the body is not JSON: {e}") from None
                payload, encoding = decode_inputs(body)
                outputs = await self.infer(payload)
                return JSONResponse(encode_outputs(outputs, encoding))
            except ServeError as e:
                return JSONResponse(e.to_json(), status_code=e.status)
            except Exception as e:  # noqa: BLE001  (an answer, not a dropped connection)
                err = ServeError.wrap(e)
                return JSONResponse(err.to_json(), status_code=err.status)

    # Picklable by reference: a replica imports kiln.serve and finds it through __getattr__.
    KilnDeployment.__module__ = __name__
    KilnDeployment.__qualname__ = "KilnDeployment"
    _deployment_class = KilnDeployment
    return KilnDeployment


def __getattr__(name):
    if name == "KilnDeployment":
        return _make_deployment_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_app(model_path, *, name="kiln", num_replicas=1, device=None, npus=None,
              num_cpus=None, compile_options=None, max_batch_size=DEFAULT_MAX_BATCH_SIZE,
              batch_wait_timeout_s=DEFAULT_BATCH_WAIT_TIMEOUT_S, batch_mode="auto",
              cache=True, max_ongoing_requests=None, ray_actor_options=None,
              **deployment_options):
    """A Ray Serve application serving `model_path` (an .onnx or .om on every node's disk).

    Args:
        name: the deployment's name (and the model's, in its metadata).
        num_replicas: replicas (or pass autoscaling_config=... through deployment_options).
        device: the Kiln device id in each replica; default $KILN_SERVE_DEVICE, else 0.
        npus: "NPU" resources per replica (fractions share a device): Ray then sets
            ASCEND_RT_VISIBLE_DEVICES for each replica, so its device 0 is its own.
        num_cpus: CPUs reserved per replica (Ray's default 1 when None).
        compile_options: kiln.compile options for an .onnx (input_shape, dynamic_batch_size..).
        max_batch_size, batch_wait_timeout_s: @serve.batch's (changeable through user_config).
        batch_mode: "auto" or "loop" (see ModelRunner).
        max_ongoing_requests: per replica; default 2 * max_batch_size (at least 8), so one batch
            gathers while another runs.
        deployment_options: any other serve.deployment option.
    """
    from ray import serve
    actor = dict(ray_actor_options or {})
    if npus:
        actor.setdefault("resources", {})["NPU"] = npus
    if num_cpus is not None:
        actor["num_cpus"] = num_cpus
    options = {"name": name, "num_replicas": num_replicas,
               "max_ongoing_requests": max_ongoing_requests or max(2 * int(max_batch_size), 8)}
    if actor:
        options["ray_actor_options"] = actor
    options.update(deployment_options)
    if "autoscaling_config" in options:
        options.pop("num_replicas")
    deployment = serve.deployment(_make_deployment_class()).options(**options)
    return deployment.bind(os.fspath(model_path), device, compile_options, max_batch_size,
                           batch_wait_timeout_s, batch_mode, name, cache)


bind = build_app


def app_builder(args):
    """`serve run kiln.serve:app_builder model_path=m.onnx max_batch_size=8` and the
    import_path of a Serve config file: build_app(**args), with numbers given as text read."""
    args = dict(args)
    for key, kind in (("num_replicas", int), ("max_batch_size", int), ("device", int),
                      ("batch_wait_timeout_s", float), ("npus", float), ("num_cpus", float),
                      ("max_ongoing_requests", int)):
        if isinstance(args.get(key), str):
            args[key] = kind(args[key])
    return build_app(args.pop("model_path"), **args)
