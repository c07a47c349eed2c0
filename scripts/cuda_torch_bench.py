#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""ResNet-50 on a lent GPU, with that machine's own PyTorch (docs/cuda.md, "Checks on a GPU").

    python3 scripts/cuda_torch_bench.py --cases DIR --out DIR [--batches 1,32] [--runs 50]

Builds ResNet-50 v1.5 (torchvision's architecture, written out here so that torchvision is not
needed; weights from torch.manual_seed(0) and PyTorch's default initialisation), then for each
batch size:
  - writes an ONNX backend test case that tests/onnx/onnx_conformance runs: DIR/resnet50/
    test_resnet50_b<N>/model.onnx (torch.onnx.export, opset 17, static dims) and
    test_data_set_0/{input_0,output_0}.pb, the expected output being PyTorch's float32 result on
    the CPU (the oracle for Kiln's float32 and fp16 runs on the GPU);
  - times PyTorch on the GPU in fp16 (model.half(), cudnn.benchmark on), eager and as a CUDA
    graph (torch.cuda.graphs), each call synchronised and timed on its own, as the conformance
    runner's --time times Kiln's aclmdlExecute.
Writes OUT/torch.json: per batch, the median/min ms of each, throughput (images/s) and the
max |output| of the reference (the fp16 tolerance is a fraction of it: OUT/fp16_tolerances.json).
Exit status 77 when PyTorch with CUDA is not there.
"""
import argparse
import inspect
import json
import os
import statistics
import struct
import sys
import time


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, wire, payload):
    key = varint((number << 3) | wire)
    if wire == 2:
        return key + varint(len(payload)) + payload
    return key + payload


def tensor_proto(name, array):
    """onnx.TensorProto of a float32 numpy array (dims 1, data_type 2, name 8, raw_data 9)."""
    dims = b"".join(varint(int(d)) for d in array.shape)
    return (field(1, 2, dims) + field(2, 0, varint(1)) + field(8, 2, name.encode()) +
            field(9, 2, array.astype("<f4").tobytes()))


def resnet50(torch):
    nn = torch.nn

    class Bottleneck(nn.Module):
        def __init__(self, cin, width, stride):
            super().__init__()
            cout = width * 4
            self.conv1, self.bn1 = nn.Conv2d(cin, width, 1, bias=False), nn.BatchNorm2d(width)
            self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)  # v1.5: stride here
            self.bn2 = nn.BatchNorm2d(width)
            self.conv3, self.bn3 = nn.Conv2d(width, cout, 1, bias=False), nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

        def forward(self, x):
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.relu(self.bn2(self.conv2(y)))
            y = self.bn3(self.conv3(y))
            return self.relu(y + (x if self.down is None else self.down(x)))

    layers = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
              nn.MaxPool2d(3, 2, 1)]
    cin = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            layers.append(Bottleneck(cin, width, stride if i == 0 else 1))
            cin = width * 4
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2048, 1000)]
    return nn.Sequential(*layers)


def timed(fn, runs, torch):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e3)
    return {"median_ms": statistics.median(times), "min_ms": min(times), "runs": runs}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--batches", default="1,32")
    p.add_argument("--runs", type=int, default=50)
    a = p.parse_args()
    try:
        import torch
    except ImportError:
        print("cuda_torch_bench: no PyTorch here")
        return 77
    if not torch.cuda.is_available():
        print("cuda_torch_bench: PyTorch sees no GPU")
        return 77
    torch.manual_seed(0)
    model = resnet50(torch).eval()
    gpu = resnet50(torch).eval()
    gpu.load_state_dict(model.state_dict())
    gpu = gpu.half().cuda()
    torch.backends.cudnn.benchmark = True
    report = {"torch": torch.__version__, "cuda": torch.version.cuda,
              "cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name(0),
              "batches": {}}
    tolerances = {}
    for batch in (int(b) for b in a.batches.split(",")):
        name = f"test_resnet50_b{batch}"
        case = os.path.join(a.cases, "resnet50", name)
        os.makedirs(os.path.join(case, "test_data_set_0"), exist_ok=True)
        x = torch.randn(batch, 3, 224, 224, generator=torch.Generator().manual_seed(batch))
        with torch.no_grad():
            ref = model(x)
            export = dict(opset_version=17, input_names=["input"], output_names=["output"])
            # The TorchScript exporter (it needs no onnx package); torch before 2.5 has no flag
            # and no other exporter by default.
            if "dynamo" in inspect.signature(torch.onnx.export).parameters:
                export["dynamo"] = False
            torch.onnx.export(model, (x,), os.path.join(case, "model.onnx"), **export)
        with open(os.path.join(case, "test_data_set_0", "input_0.pb"), "wb") as f:
            f.write(tensor_proto("input", x.numpy()))
        with open(os.path.join(case, "test_data_set_0", "output_0.pb"), "wb") as f:
            f.write(tensor_proto("output", ref.numpy()))
        peak = float(ref.abs().max())
        # float32 on the GPU: as ONNX's own cases; fp16: 1 % of the largest logit.
        with open(os.path.join(case, "data.json"), "w") as f:
            json.dump({"rtol": 1e-3, "atol": 1e-4 * peak}, f)
        tolerances[f"resnet50/{name}"] = {"rtol": 1e-2, "atol": 1e-2 * peak}

        xg = x.half().cuda()
        with torch.no_grad():
            eager = timed(lambda: gpu(xg), a.runs, torch)
            static_in = xg.clone()
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                for _ in range(3):
                    gpu(static_in)
            torch.cuda.current_stream().wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                static_out = gpu(static_in)
            graphed = timed(graph.replay, a.runs, torch)
            err = float((static_out.float().cpu() - ref).abs().max())
        for r in (eager, graphed):
            r["images_per_s"] = batch * 1e3 / r["median_ms"]
        report["batches"][str(batch)] = {"eager_fp16": eager, "cuda_graph_fp16": graphed,
                                         "reference_max_abs": peak,
                                         "torch_fp16_max_abs_err": err}
        print(f"batch {batch}: PyTorch fp16 eager {eager['median_ms']:.3f} ms, CUDA graph "
              f"{graphed['median_ms']:.3f} ms (max |err| vs fp32 CPU {err:.3g} of {peak:.3g})")
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "torch.json"), "w") as f:
        json.dump(report, f, indent=2)
    with open(os.path.join(a.out, "fp16_tolerances.json"), "w") as f:
        json.dump(tolerances, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
