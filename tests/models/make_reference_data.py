#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Writes onnxruntime reference data for every model of the public set.

    .venv/bin/python tests/models/make_reference_data.py --out DIR [--only A,B] [--list]
                     [--generated DIR] [--force]

For each case it builds deterministic, realistic inputs (seeded synthetic scenes, rendered text,
a synthetic audio signal, token ids with padding), runs onnxruntime 1.32 on them (CPU execution
provider, ORT_ENABLE_ALL, one thread) and writes the case in the ONNX backend-test layout that
tests/onnx/onnx_conformance reads:

    DIR/public/<case>/model.onnx                       a symlink to the model, or a copy of it
                                                       with the input dims fixed (style "fixed")
    DIR/public/<case>/test_data_set_N/input_K.pb       graph.input[K] (initializers skipped)
    DIR/public/<case>/test_data_set_N/output_K.pb      onnxruntime's graph.output[K]
    DIR/public/<case>/case.json                        source, style, input description, stamp

so `onnx_conformance --data-root=DIR --subsets=public` compiles and runs each one through Kiln.
Styles: "static" (the model's inputs have fixed dims already), "dynamic" (the model keeps its
symbolic dims; the runner compiles it with -1 dims and gives the real ones through
aclmdlSetDatasetTensorDesc) and "fixed" (a copy of the model whose graph inputs carry the
concrete dims, as `kiln atc --input_shape` would). A case whose case.json carries the same stamp
(this script's hash, the model file's size and mtime, the onnxruntime/pillow/numpy versions) is
skipped unless --force.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time

import numpy as np
import onnx
import onnxruntime as ort
import PIL
from onnx import numpy_helper
from PIL import Image, ImageDraw, ImageFilter, ImageFont

SUBSET = "public"

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SITE = sysconfig.get_paths()["purelib"]
MODELS = os.path.join(ROOT, "tests", "data", "models")
IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
IMAGENET_STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


# ---------------------------------------------------------------------------------------------
# Synthetic inputs


def scene(height, width, seed, faces=0):
    """An RGB uint8 [H, W, 3] picture: a two-colour gradient, blurred random ellipses and boxes,
    optionally cartoon faces (skin ellipse, eyes, mouth), and a little sensor noise."""
    rng = np.random.default_rng(seed)
    top, bottom = rng.uniform(30, 225, size=(2, 3))
    t = np.linspace(0.0, 1.0, height, dtype=np.float32)[:, None, None]
    base = (top * (1 - t) + bottom * t) * np.ones((1, width, 1), dtype=np.float32)
    img = Image.fromarray(base.astype(np.uint8), "RGB")
    draw = ImageDraw.Draw(img)
    for _ in range(12):
        x0, y0 = rng.uniform(-0.2, 1.0, 2) * (width, height)
        w, h = rng.uniform(0.1, 0.5, 2) * (width, height)
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        if rng.random() < 0.5:
            draw.ellipse([x0, y0, x0 + w, y0 + h], fill=colour)
        else:
            draw.rectangle([x0, y0, x0 + w, y0 + h], fill=colour)
    img = img.filter(ImageFilter.GaussianBlur(2))
    draw = ImageDraw.Draw(img)
    for _ in range(faces):
        s = rng.uniform(0.18, 0.3) * min(width, height)
        cx, cy = rng.uniform(s, width - s), rng.uniform(s, height - s)
        skin = tuple(int(rng.integers(lo, hi)) for lo, hi in ((170, 240), (120, 180), (90, 150)))
        draw.ellipse([cx - 0.8 * s, cy - s, cx + 0.8 * s, cy + s], fill=skin)
        for ex in (-0.32, 0.32):
            draw.ellipse([cx + (ex - 0.1) * s, cy - 0.35 * s, cx + (ex + 0.1) * s, cy - 0.2 * s],
                         fill=(30, 25, 20))
        draw.line([cx - 0.1 * s, cy + 0.1 * s, cx, cy + 0.25 * s], fill=(120, 80, 60), width=2)
        draw.arc([cx - 0.35 * s, cy + 0.2 * s, cx + 0.35 * s, cy + 0.6 * s], 20, 160,
                 fill=(150, 40, 40), width=3)
    img = img.filter(ImageFilter.GaussianBlur(0.8))
    arr = np.asarray(img, dtype=np.float32)
    arr = arr + rng.normal(0.0, 3.0, arr.shape).astype(np.float32)
    return np.clip(np.rint(arr), 0, 255).astype(np.uint8)


def text_image(height, width, lines, size, seed):
    """Dark text on a light, slightly uneven background: RGB uint8 [H, W, 3]. The font is the
    one bundled with pillow (ImageFont.load_default), so the pixels do not depend on the host."""
    rng = np.random.default_rng(seed)
    paper = tuple(int(c) for c in rng.integers(225, 250, 3))
    img = Image.new("RGB", (width, height), paper)
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=size)
    y = (height - len(lines) * size * 1.4) / 2 + 0.2 * size
    for line in lines:
        ink = tuple(int(c) for c in rng.integers(0, 60, 3))
        draw.text((int(0.04 * width + rng.uniform(0, 0.04 * width)), int(y)), line, fill=ink,
                  font=font)
        y += size * 1.4
    img = img.filter(ImageFilter.GaussianBlur(0.6))
    arr = np.asarray(img, dtype=np.float32) + rng.normal(0.0, 2.0, (height, width, 3))
    return np.clip(np.rint(arr), 0, 255).astype(np.uint8)


def nchw(img_hwc):
    """HWC -> [1, C, H, W] float32."""
    return np.ascontiguousarray(img_hwc.transpose(2, 0, 1)[None].astype(np.float32))


def imagenet(img):
    """RGB uint8 -> [1, 3, H, W] float32, torchvision ImageNet normalisation."""
    return nchw((img.astype(np.float32) / 255.0 - IMAGENET_MEAN) / IMAGENET_STD)


def paddle_ocr(img):
    """RGB uint8 -> [1, 3, H, W] float32 in [-1, 1]: (x / 255 - 0.5) / 0.5 (rapidocr)."""
    return nchw((img.astype(np.float32) / 255.0 - 0.5) / 0.5)


def audio(seconds, rate, seed):
    """A speech-like float32 signal in [-1, 1]: a voiced segment (harmonics of a gliding pitch,
    syllable-rate amplitude modulation) between low-level noise."""
    rng = np.random.default_rng(seed)
    n = int(seconds * rate)
    t = np.arange(n) / rate
    pitch = 140 + 40 * np.sin(2 * np.pi * 0.7 * t)
    phase = 2 * np.pi * np.cumsum(pitch) / rate
    voiced = sum(np.sin(k * phase) / k for k in range(1, 8))
    envelope = np.clip(np.sin(2 * np.pi * 4 * t), 0, None) ** 0.5
    gate = ((t > 0.25 * seconds) & (t < 0.8 * seconds)).astype(np.float64)
    x = 0.3 * voiced * envelope * gate + 0.01 * rng.normal(size=n)
    return np.clip(x, -1.0, 1.0).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# The cases


def light(name):
    return os.path.join(SITE, "onnx", "backend", "test", "data", "light", f"light_{name}.onnx")


def mnist_sets(_model):
    """The three digits shipped with mnist-8 (real handwriting)."""
    sets = []
    for n in range(3):
        t = onnx.TensorProto()
        with open(os.path.join(MODELS, "mnist-8", f"test_data_set_{n}", "input_0.pb"), "rb") as f:
            t.ParseFromString(f.read())
        sets.append({"Input3": numpy_helper.to_array(t)})
    return sets, "the 3 handwritten digits shipped in test_data_set_{0,1,2}"


def yunet_sets(height, width):
    def make(_model):
        img = scene(height, width, seed=11, faces=3)[:, :, ::-1]  # OpenCV order: BGR
        return ([{"input": nchw(img)}],
                f"BGR 0..255 scene {height}x{width} with 3 cartoon faces (seed 11)")
    return make


def yolo_sets(_model):
    img = scene(320, 320, seed=8, faces=2)
    return [{"images": nchw(img.astype(np.float32) / 255.0)}], "RGB [0,1] scene 320x320 (seed 8)"


def ocr_det_sets(_model):
    lines = ["Kiln compiles ONNX", "to .om files: 2026", "PP-OCRv4 text det"]
    img = text_image(256, 384, lines, size=34, seed=4)
    return [{"x": paddle_ocr(img)}], "3 rendered text lines, 256x384, (x/255-0.5)/0.5"


def ocr_rec_sets(_model):
    img = text_image(48, 320, ["Hello Kiln 42"], size=30, seed=5)
    return [{"x": paddle_ocr(img)}], "rendered line 'Hello Kiln 42', 48x320, (x/255-0.5)/0.5"


def ocr_cls_sets(_model):
    img = text_image(48, 192, ["upside down?"], size=26, seed=6)[::-1, ::-1]  # rotated 180
    return [{"x": paddle_ocr(np.ascontiguousarray(img))}], \
        "rendered line rotated 180 degrees, 48x192, (x/255-0.5)/0.5"


def silero_sets(model):
    """16 kHz: chunk 0 from a zero state, then chunk 1 with the state onnxruntime returned
    (streaming); 8 kHz: one chunk from a zero state (the If's other branch). Each chunk carries
    the 64 (32 at 8 kHz) samples of context the silero_vad wrapper prepends."""
    sess = session(model)
    wave16 = audio(1.0, 16000, seed=16)
    state = np.zeros((2, 1, 128), dtype=np.float32)
    start = 8000  # inside the voiced segment
    sets = []
    for _ in range(2):
        x = wave16[start - 64:start + 512][None]
        feeds = {"input": x, "state": state, "sr": np.array(16000, dtype=np.int64)}
        sets.append(feeds)
        state = sess.run(None, feeds)[1]
        start += 512
    wave8 = audio(1.0, 8000, seed=8)
    sets.append({"input": wave8[4000 - 32:4000 + 256][None],
                 "state": np.zeros((2, 1, 128), dtype=np.float32),
                 "sr": np.array(8000, dtype=np.int64)})
    return sets, ("16 kHz chunk [1,576] from zero state, the next chunk with the carried state, "
                  "8 kHz chunk [1,288] from zero state; sr int64 scalar")


def classifier_sets(name, seed, scale="imagenet"):
    def make(_model):
        img = scene(224, 224, seed=seed)
        if scale == "imagenet":
            return [{name: imagenet(img)}], f"RGB scene 224x224 (seed {seed}), ImageNet mean/std"
        # Caffe2 zoo models: BGR 0..255 minus the ImageNet mean.
        bgr = img[:, :, ::-1].astype(np.float32) - np.array([104.0, 117.0, 123.0], np.float32)
        return [{name: nchw(bgr)}], f"BGR scene 224x224 (seed {seed}), 0..255 minus mean"
    return make


def bert_sets(_model):
    rng = np.random.default_rng(128)
    seq, used = 128, 97
    ids = rng.integers(1000, 30522, size=(1, seq), dtype=np.int64)
    ids[0, 0], ids[0, 40], ids[0, used - 1] = 101, 102, 102  # [CLS] ... [SEP] ... [SEP]
    ids[0, used:] = 0  # [PAD]
    mask = np.zeros((1, seq), dtype=np.int64)
    mask[0, :used] = 1
    types = np.zeros((1, seq), dtype=np.int64)
    types[0, 41:used] = 1
    return ([{"input_ids": ids, "attention_mask": mask, "token_type_ids": types}],
            "[1,128]: 97 random token ids (two segments, [CLS]/[SEP]), 31 padding (mask 0)")


def sequence_sets(name, shape, seed):
    def make(_model):
        x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
        return [{name: x}], f"{list(shape)} standard normal (seed {seed})"
    return make


def generated(name):
    return os.path.join(GENERATED_DIR[0], name)


GENERATED_DIR = [os.path.join(ROOT, "build", "models")]


def last_pool_input(model):
    """The light models' last feature map (the input of the last pooling node) becomes an extra
    graph output, beside the class scores: a softmax over a thousand classes can hide an error
    of the layers before it."""
    pools = [n for n in model.graph.node
             if n.op_type in ("AveragePool", "GlobalAveragePool", "MaxPool")]
    return [pools[-1].input[0]]


def random_weights(seed):
    """The light models build every float weight with ConstantOfShape, one value per tensor:
    every filter of a layer is then the same, every channel computes the same values, and a
    mix-up of channels (a layout's, a concatenation's offsets) would compare equal. Each such
    weight becomes a seeded random initializer instead: a convolution's or Gemm's weights normal
    with the spread of He's initialisation (the first convolution's a 128th of it, for inputs of
    0..255), a batch normalisation's variance positive and its scale near 1, other vectors
    small."""
    def apply(model):
        uses = {}
        for node in model.graph.node:
            for k, name in enumerate(node.input):
                uses.setdefault(name, []).append((node, k))
        rng = np.random.default_rng(seed)
        inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        data = {v.name for v in graph_inputs(model)}
        first = {n.input[1] for n in model.graph.node
                 if n.op_type == "Conv" and n.input and n.input[0] in data}
        kept, made = [], []
        for node in model.graph.node:
            value = next((a.t for a in node.attribute if a.name == "value"), None)
            if (node.op_type != "ConstantOfShape" or node.input[0] not in inits or value is None
                    or value.data_type != onnx.TensorProto.FLOAT):
                kept.append(node)
                continue
            shape = [int(d) for d in inits[node.input[0]]]
            reader, slot = uses.get(node.output[0], [(None, -1)])[0]
            op = reader.op_type if reader is not None else ""
            if len(shape) >= 2:
                trans_b = any(a.name == "transB" and a.i for a in reader.attribute) if reader else 0
                fan = shape[1] if op == "Gemm" and trans_b else (
                    shape[0] if op == "Gemm" else int(np.prod(shape[1:])))
                w = rng.standard_normal(shape) * np.sqrt(2.0 / max(fan, 1))
                if node.output[0] in first:
                    w /= 128  # the inputs span 0..255 less the mean: features of about 1 after
            elif op == "BatchNormalization" and slot == 4:
                w = rng.uniform(0.5, 1.5, shape)
            elif op == "BatchNormalization" and slot == 1:
                w = rng.uniform(0.8, 1.2, shape)
            else:
                w = rng.standard_normal(shape) * 0.1
            made.append(numpy_helper.from_array(w.astype(np.float32), node.output[0]))
        del model.graph.node[:]
        model.graph.node.extend(kept)
        model.graph.initializer.extend(made)
        return model
    return apply


# case name -> (model path (a callable for generated models), style, input maker[, a function
# naming intermediate tensors to add as graph outputs[, a change made to the model first]])
CASES = {
    "mnist-8": (lambda: os.path.join(MODELS, "mnist-8", "model.onnx"), "static", mnist_sets),
    "yunet_n_320_320": (lambda: os.path.join(MODELS, "yunet", "yunet_n_320_320.onnx"), "static",
                        yunet_sets(320, 320)),
    "yunet_n_dynamic": (lambda: os.path.join(MODELS, "yunet", "yunet_n_dynamic.onnx"), "dynamic",
                        yunet_sets(256, 384)),
    "yunet_n_dynamic_fixed": (lambda: os.path.join(MODELS, "yunet", "yunet_n_dynamic.onnx"),
                              "fixed", yunet_sets(256, 384)),
    "yolov8n_320n": (lambda: os.path.join(SITE, "nudenet", "320n.onnx"), "dynamic", yolo_sets),
    "ppocrv4_det": (lambda: os.path.join(SITE, "rapidocr_onnxruntime", "models",
                                         "ch_PP-OCRv4_det_infer.onnx"), "dynamic", ocr_det_sets),
    "ppocrv4_rec": (lambda: os.path.join(SITE, "rapidocr_onnxruntime", "models",
                                         "ch_PP-OCRv4_rec_infer.onnx"), "dynamic", ocr_rec_sets),
    "ppocr_mobile_v2_cls": (lambda: os.path.join(SITE, "rapidocr_onnxruntime", "models",
                                                 "ch_ppocr_mobile_v2.0_cls_infer.onnx"),
                            "dynamic", ocr_cls_sets),
    "silero_vad": (lambda: os.path.join(SITE, "silero_vad", "data", "silero_vad.onnx"), "dynamic",
                   silero_sets),
    # The fixed copy takes only [1,576] chunks. onnxruntime refuses to load it (its shape
    # inference of the unused 8 kHz branch fails), so its reference comes from the original.
    "silero_vad_fixed": (lambda: os.path.join(SITE, "silero_vad", "data", "silero_vad.onnx"),
                         "fixed", lambda m: (silero_sets(m)[0][:2],
                                             "the two 16 kHz chunks of silero_vad")),
    "resnet50_v1.5": (lambda: generated("resnet50_v1.5.onnx"), "fixed",
                      classifier_sets("input", 50)),
    "mobilenetv2": (lambda: generated("mobilenetv2.onnx"), "fixed", classifier_sets("input", 2)),
    "bert_encoder": (lambda: generated("bert_encoder.onnx"), "fixed", bert_sets),
    # Recurrent heads (Kiln's LSTM kernel: bidirectional, and unidirectional with shared steps).
    "crnn_head": (lambda: generated("crnn_head.onnx"), "fixed",
                  sequence_sets("features", (80, 1, 512), 80)),
    "lstm_lm": (lambda: generated("lstm_lm.onnx"), "fixed",
                sequence_sets("inputs", (64, 1, 256), 81)),
}
for _name, _seed in [("bvlc_alexnet", 101), ("densenet121", 102), ("inception_v1", 103),
                     ("inception_v2", 104), ("resnet50", 105), ("shufflenet", 106),
                     ("squeezenet", 107), ("vgg19", 108), ("zfnet512", 109)]:
    _input = "gpu_0/data_0" if _name in ("resnet50", "shufflenet", "zfnet512") else "data_0"
    # ResNet-50's and ShuffleNet's residual sums, unnormalised, grow to 1e4-1e6 with random
    # weights, where an element-wise tolerance fails on elements near zero whose error is 1e-5
    # of the largest: they keep their constant weights.
    _change = None if _name in ("resnet50", "shufflenet") else random_weights(_seed)
    CASES[f"light_{_name}"] = (lambda n=_name: light(n), "static",
                               classifier_sets(_input, _seed, scale="caffe2"), last_pool_input,
                               _change)

GENERATED_MODELS = {"resnet50_v1.5": "resnet50", "mobilenetv2": "mobilenetv2",
                    "bert_encoder": "bert", "crnn_head": "crnn", "lstm_lm": "lstm_lm"}


# ---------------------------------------------------------------------------------------------
# Writing a case


def session(path):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def graph_inputs(model):
    """The graph inputs that are not initializers, in order."""
    inits = {i.name for i in model.graph.initializer}
    return [v for v in model.graph.input if v.name not in inits]


def fixed_copy(model, shapes, path):
    """Writes `model` with the dims of its graph inputs replaced by `shapes` (name -> dims)."""
    for v in graph_inputs(model):
        dims = v.type.tensor_type.shape.dim
        want = shapes[v.name]
        if len(dims) != len(want):
            raise ValueError(f"{v.name}: rank {len(dims)} in the model, data has {len(want)}")
        for d, n in zip(dims, want):
            d.Clear()
            d.dim_value = int(n)
    tmp = f"{path}.tmp{os.getpid()}"
    onnx.save(model, tmp)
    os.replace(tmp, path)


def stamp(src):
    """What a case's data depends on: this script's bytes, the model file, the packages."""
    st = os.stat(src)
    with open(__file__, "rb") as f:
        script = hashlib.sha256(f.read()).hexdigest()[:16]
    return {"script_sha256": script, "source": os.path.realpath(src),
            "source_size": st.st_size, "source_mtime_ns": st.st_mtime_ns,
            "onnxruntime": ort.__version__, "pillow": PIL.__version__,
            "numpy": np.__version__}


def write_tensor(path, array, name):
    t = numpy_helper.from_array(np.asarray(array), name=name)
    with open(path, "wb") as f:
        f.write(t.SerializeToString())


def add_outputs(model, names):
    """Appends the intermediate tensors `names` to the graph outputs (dtype and rank from shape
    inference)."""
    inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(model).graph.value_info}
    for name in names:
        if name not in inferred:
            raise ValueError(f"no type for tensor {name}")
        model.graph.output.append(inferred[name])


def make_case(name, out_root, force):
    src_fn, style, make_inputs = CASES[name][:3]
    expose = CASES[name][3] if len(CASES[name]) > 3 else None
    change = CASES[name][4] if len(CASES[name]) > 4 else None
    src = src_fn()
    case_dir = os.path.join(out_root, SUBSET, name)
    meta_path = os.path.join(case_dir, "case.json")
    if not os.path.exists(src):
        raise FileNotFoundError(f"{src} (run scripts/setup.sh)")
    if not force and os.path.exists(meta_path):
        with open(meta_path) as f:
            old = json.load(f)
        if old.get("stamp") == stamp(src):
            return old, True
    start = time.perf_counter()
    model = onnx.load(src)
    if change:
        model = change(model)
    sets, description = make_inputs(src)
    inputs = graph_inputs(model)
    if expose:
        add_outputs(model, expose(model))
    if os.path.isdir(case_dir):
        shutil.rmtree(case_dir)
    os.makedirs(case_dir)
    target = os.path.join(case_dir, "model.onnx")
    if style == "fixed":
        fixed_copy(model, {k: np.shape(a) for k, a in sets[0].items()}, target)
    elif expose or change:
        onnx.save(model, target)
    else:
        os.symlink(os.path.realpath(src), target)
    # onnxruntime runs the original file, or the copy with the extra outputs or the change.
    sess = session(target if expose or change else src)
    ort_ms = []
    for n, feeds in enumerate(sets):
        set_dir = os.path.join(case_dir, f"test_data_set_{n}")
        os.makedirs(set_dir)
        if sorted(feeds) != sorted(v.name for v in inputs):
            raise ValueError(f"{name}: inputs {sorted(feeds)} but the model has "
                             f"{[v.name for v in inputs]}")
        t0 = time.perf_counter()
        results = sess.run(None, feeds)
        ort_ms.append((time.perf_counter() - t0) * 1e3)
        for k, v in enumerate(inputs):
            write_tensor(os.path.join(set_dir, f"input_{k}.pb"), feeds[v.name], v.name)
        for k, (v, r) in enumerate(zip(model.graph.output, results)):
            if r.dtype.kind == "f" and not np.all(np.isfinite(r)):
                raise ValueError(f"{name}: onnxruntime output {v.name} is not finite")
            write_tensor(os.path.join(set_dir, f"output_{k}.pb"), r, v.name)
    meta = {
        "case": name,
        "style": style,
        "source": os.path.realpath(src),
        "inputs": description,
        "data_sets": [{k: [str(np.asarray(a).dtype), list(np.shape(a))] for k, a in s.items()}
                      for s in sets],
        "outputs": [v.name for v in model.graph.output],
        "extra_outputs": expose(model) if expose else [],
        "onnxruntime": {"version": ort.__version__, "threads": 1,
                        "optimization": "ORT_ENABLE_ALL", "run_ms": ort_ms},
        "stamp": stamp(src),
        "seconds": time.perf_counter() - start,
    }
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    return meta, False


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--out", help=f"data root to write <out>/{SUBSET}/<case>/ into")
    parser.add_argument("--only", default="",
                        help="comma-separated case names (default: every case; see --list)")
    parser.add_argument("--generated", default=GENERATED_DIR[0],
                        help="where scripts/gen_models.py writes the generated models "
                             "(default: <repo>/build/models)")
    parser.add_argument("--force", action="store_true", help="rewrite cases that are current")
    parser.add_argument("--list", action="store_true", help="print the case names and exit")
    args = parser.parse_args(argv)
    args.only = [c.strip() for c in args.only.split(",") if c.strip()] or list(CASES)
    unknown = [c for c in args.only if c not in CASES]
    if unknown:
        parser.error(f"--only: unknown case(s) {','.join(unknown)}; see --list")
    if not args.list and not args.out:
        parser.error("--out is required")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.list:
        for name in CASES:
            print(name)
        return 0
    GENERATED_DIR[0] = os.path.abspath(args.generated)
    wanted = sorted({GENERATED_MODELS[c] for c in args.only if c in GENERATED_MODELS})
    if wanted:
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_models.py"), "--out",
                        GENERATED_DIR[0], "--only", ",".join(wanted)], check=True,
                       stdout=subprocess.DEVNULL)
    failed = 0
    for name in args.only:
        try:
            meta, current = make_case(name, args.out, args.force)
        except Exception as e:  # report every case, then fail
            print(f"FAIL {name}: {type(e).__name__}: {e}")
            failed += 1
            continue
        if current:
            print(f"{name}: current, skipped")
        else:
            ms = ", ".join(f"{t:.0f}" for t in meta["onnxruntime"]["run_ms"])
            print(f"{name}: {meta['style']}, {len(meta['data_sets'])} data set(s), "
                  f"onnxruntime {ms} ms, {meta['seconds']:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
