# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""A KServe model server for a Kiln model: the Open Inference Protocol (v2) over REST.

    python -m kiln.kserve_model --model_name mnist --model_path mnist.onnx --http_port 8080

serves, through the `kserve` package's ModelServer:
    POST /v2/models/mnist/infer   {"inputs": [{"name", "shape", "datatype", "data"}]}
                                  (and the binary tensor extension)
    GET  /v2/models/mnist         the inputs' and outputs' names, datatypes and shapes (-1: any)
    GET  /v2/models/mnist/ready, /v2/health/ready, /v2/health/live
    POST /v1/models/mnist:predict {"instances": [...]} (one-input models)

The model runs through kiln.serve.ModelRunner (the one Ray Serve uses): an .onnx is compiled by
kiln.InferenceSession, an .om loaded by kiln.Model, on --device (default $KILN_SERVE_DEVICE,
else 0, within ASCEND_RT_VISIBLE_DEVICES). With --max_batch_size > 1 concurrent requests are
gathered for up to --batch_wait_timeout_s and run as one batch (docs/serving.md). Kiln's
errors are HTTP answers: bad inputs 400, failed runs 500.

The `kserve` package is imported only when the server is built (KilnKServeModel, main), so that
`import kiln` never needs it. This file is not named kserve.py: inside the kiln package that
name would read as the kserve package to a reader, though Python 3's absolute imports would
still find the real one.
"""
import argparse
import asyncio
import concurrent.futures
import json
import os
import uuid

import numpy as np

from kiln.errors import KilnError
from kiln.serve_runner import DEFAULT_BATCH_WAIT_TIMEOUT_S, ModelRunner, ServeError

# numpy dtype -> the Open Inference Protocol's datatype name.
V2_DATATYPES = {
    np.dtype(np.bool_): "BOOL", np.dtype(np.int8): "INT8", np.dtype(np.int16): "INT16",
    np.dtype(np.int32): "INT32", np.dtype(np.int64): "INT64", np.dtype(np.uint8): "UINT8",
    np.dtype(np.uint16): "UINT16", np.dtype(np.uint32): "UINT32",
    np.dtype(np.uint64): "UINT64", np.dtype(np.float16): "FP16",
    np.dtype(np.float32): "FP32", np.dtype(np.float64): "FP64",
}


class Batcher:
    """Gathers concurrent requests of one event loop into batches for ModelRunner.run: a batch
    starts with the first waiting request and closes at max_batch_size requests or
    batch_wait_timeout_s after it began; batches run one at a time on one worker thread, so the
    event loop keeps reading requests (and filling the next batch) meanwhile."""

    def __init__(self, runner, max_batch_size=1,
                 batch_wait_timeout_s=DEFAULT_BATCH_WAIT_TIMEOUT_S):
        self.runner = runner
        self.max_batch_size = max(1, int(max_batch_size))
        self.timeout = max(0.0, float(batch_wait_timeout_s))
        self._queue = None
        self._task = None
        self._pool = concurrent.futures.ThreadPoolExecutor(1, "kiln-kserve")

    async def submit(self, sample):
        """The outputs for one Sample (a ServeError is raised)."""
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._task = asyncio.get_running_loop().create_task(self._loop())
        future = asyncio.get_running_loop().create_future()
        await self._queue.put((sample, future))
        result = await future
        if isinstance(result, ServeError):
            raise result
        return result

    async def _loop(self):
        loop = asyncio.get_running_loop()
        while True:
            batch = [await self._queue.get()]
            deadline = loop.time() + self.timeout
            while len(batch) < self.max_batch_size:
                left = deadline - loop.time()
                try:
                    batch.append(self._queue.get_nowait() if left <= 0 else
                                 await asyncio.wait_for(self._queue.get(), left))
                except (asyncio.QueueEmpty, asyncio.TimeoutError):
                    break
            try:
                results = await loop.run_in_executor(self._pool, self.runner.run,
                                                      [s for s, _ in batch])
            except Exception as e:  # noqa: BLE001  (every waiting request gets the failure)
                results = [ServeError.wrap(e)] * len(batch)
            for (_, future), result in zip(batch, results):
                if not future.done():
                    future.set_result(result)


_model_class = None


def _make_model_class():
    """KilnKServeModel, a kserve.Model, built at first use so that kserve is imported only
    then."""
    global _model_class
    if _model_class is not None:
        return _model_class
    import kserve
    from kserve.errors import InferenceError, InvalidInput
    from kserve.logging import logger as kserve_logger
    from kserve.protocol.infer_type import InferOutput, InferRequest, InferResponse

    class KilnKServeModel(kserve.Model):
        """A Kiln model as a KServe predictor (see the module's docstring)."""

        def __init__(self, name, model_path, device=None, compile_options=None,
                     batch_mode="auto", max_batch_size=1,
                     batch_wait_timeout_s=DEFAULT_BATCH_WAIT_TIMEOUT_S, cache=True):
            super().__init__(name)
            self.model_path = model_path
            self._options = dict(device=device, compile_options=compile_options,
                                 batch_mode=batch_mode, cache=cache, name=name)
            self._batching = (max_batch_size, batch_wait_timeout_s)
            self.runner = None
            self.batcher = None

        def load(self):
            self.runner = ModelRunner(self.model_path, **self._options)
            self.batcher = Batcher(self.runner, *self._batching)
            self.ready = True
            return self.ready

        def stop(self):
            """At the server's shutdown: logs the batch statistics (ModelRunner.stats). The
            model itself stays loaded until the process exits, as a request may still be
            running on it."""
            if self.runner is not None:
                kserve_logger.info("kiln: %s served %s", self.name,
                                   json.dumps(self.runner.stats()))
            self.ready = False

        @staticmethod
        def _types(infos):
            return [{"name": t.name, "datatype": V2_DATATYPES.get(t.dtype, str(t.dtype)),
                     "shape": [int(d) for d in t.shape]} for t in infos]

        def get_input_types(self):
            return self._types(self.runner.inputs)

        def get_output_types(self):
            return self._types(self.runner.outputs)

        async def predict(self, payload, headers=None, response_headers=None):
            if isinstance(payload, InferRequest):
                return await self._predict_v2(payload)
            if isinstance(payload, dict) and "instances" in payload:
                outputs = await self._run(payload["instances"])
                if len(outputs) == 1:
                    return {"predictions": next(iter(outputs.values())).tolist()}
                return {"predictions": {n: a.tolist() for n, a in outputs.items()}}
            raise InvalidInput('expected an Open Inference Protocol request, or {"instances": '
                               '[...]} (v1)')

        async def _predict_v2(self, request):
            try:
                inputs = {i.name: i.as_numpy() for i in request.inputs}
            except ValueError as e:  # a data list that does not fill its shape
                raise InvalidInput(f"bad input tensor: {e}") from None
            outputs = await self._run(inputs)
            wanted = [o.name for o in (request.request_outputs or [])] or list(outputs)
            unknown = [n for n in wanted if n not in outputs]
            if unknown:
                raise InvalidInput(f"unknown output(s) {unknown}; the model's outputs are "
                                   f"{list(outputs)}")
            binary = request.use_binary_outputs
            result = []
            for name in wanted:
                a = outputs[name]
                out = InferOutput(name, list(a.shape), V2_DATATYPES.get(a.dtype, "BYTES"))
                out.set_data_from_numpy(a, binary_data=binary)
                result.append(out)
            # The request's id, or a new one (the response must carry one).
            return InferResponse(request.id or str(uuid.uuid4()), self.name, result,
                                 use_binary_outputs=binary,
                                 requested_outputs=request.request_outputs)

        async def _run(self, inputs):
            try:
                return await self.batcher.submit(self.runner.prepare(inputs))
            except ServeError as e:
                if e.status < 500:
                    raise InvalidInput(e.message) from None
                raise InferenceError(e.message) from None

    KilnKServeModel.__module__ = __name__
    _model_class = KilnKServeModel
    return KilnKServeModel


def __getattr__(name):
    if name == "KilnKServeModel":
        return _make_model_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _http_host_patch(host):
    """kserve's REST server listens on 0.0.0.0; --http_host binds it to one address instead
    (127.0.0.1 for a server reachable only from this machine)."""
    from kserve import model_server
    base = model_server.RESTServer

    class HostRESTServer(base):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.config.host = host

    model_server.RESTServer = HostRESTServer


def parse_args(argv=None):
    from kserve import model_server
    parser = argparse.ArgumentParser(parents=[model_server.parser],
                                     description="A Kiln model behind KServe's ModelServer")
    parser.add_argument("--model_path", required=True, help="the .onnx or .om to serve")
    parser.add_argument("--device", type=int, default=None,
                        help="Kiln device id (default $KILN_SERVE_DEVICE, else 0)")
    parser.add_argument("--compile_options", default=None, type=json.loads,
                        help='kiln.compile options for an .onnx, as JSON: '
                             '\'{"input_shape": "input:-1,3,224,224"}\'')
    parser.add_argument("--batch_mode", choices=("auto", "loop"), default="auto")
    parser.add_argument("--max_batch_size", type=int, default=1,
                        help="requests gathered into one run (1: no batching)")
    parser.add_argument("--batch_wait_timeout_s", type=float,
                        default=DEFAULT_BATCH_WAIT_TIMEOUT_S)
    parser.add_argument("--http_host", default=None,
                        help="address to listen on (kserve's default: 0.0.0.0)")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.workers != 1:
        # More workers would be processes of their own, each without this model.
        raise SystemExit("kiln.kserve_model: --workers must be 1 (run more servers instead)")
    import kserve
    if args.http_host:
        _http_host_patch(args.http_host)
    model = _make_model_class()(args.model_name, os.path.abspath(args.model_path),
                                device=args.device, compile_options=args.compile_options,
                                batch_mode=args.batch_mode, max_batch_size=args.max_batch_size,
                                batch_wait_timeout_s=args.batch_wait_timeout_s)
    try:
        model.load()
    except (OSError, ValueError, KilnError) as e:
        raise SystemExit(f"kiln.kserve_model: cannot load {args.model_path}: {e}") from None
    kserve.ModelServer(http_port=args.http_port, grpc_port=args.grpc_port,
                       workers=args.workers, enable_grpc=args.enable_grpc).start([model])


if __name__ == "__main__":
    main()
