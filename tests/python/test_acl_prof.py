# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""acl.prof the pyACL way: a collection run (init → create_config → start → executions with
msproftx marks and ranges → stop → finalize) leaves a PROF_* folder whose op_summary names the
model's ONNX nodes; a model subscription writes one record per operator to a pipe, read back
with the get_op_* functions; step info; and the documented error codes."""
import csv
import glob
import json
import os

import numpy as np
import pytest

import acl
from conftest import MNIST


@pytest.fixture
def device():
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    yield
    assert acl.rt.reset_device(0) == 0
    assert acl.finalize() == 0


@pytest.fixture(scope="module")
def onnx_nodes():
    onnx = pytest.importorskip("onnx")
    return {n.name for n in onnx.load(os.path.join(MNIST, "model.onnx")).graph.node}


class Model:
    """mnist loaded with device buffers for its input (one digit) and output."""

    def __init__(self, om, digit):
        self.id, ret = acl.mdl.load_from_file(om)
        assert ret == 0
        self.desc = acl.mdl.create_desc()
        assert acl.mdl.get_desc(self.desc, self.id) == 0
        self.buffers = []
        self.inputs = self._dataset([digit.astype(np.float32).tobytes()])
        self.outputs = self._dataset([None])

    def _dataset(self, blobs):
        ds = acl.mdl.create_dataset()
        for i, blob in enumerate(blobs):
            size = (acl.mdl.get_input_size_by_index(self.desc, i) if blob is not None
                    else acl.mdl.get_output_size_by_index(self.desc, i))
            ptr, ret = acl.rt.malloc(size, 0)
            assert ret == 0
            if blob is not None:
                assert acl.rt.memcpy(ptr, size, acl.util.bytes_to_ptr(blob), size, 1) == 0
            buf = acl.create_data_buffer(ptr, size)
            _, ret = acl.mdl.add_dataset_buffer(ds, buf)
            assert ret == 0
            self.buffers.append((ptr, buf))
        return ds

    def execute(self):
        assert acl.mdl.execute(self.id, self.inputs, self.outputs) == 0

    def close(self):
        for ptr, buf in self.buffers:
            assert acl.destroy_data_buffer(buf) == 0
            assert acl.rt.free(ptr) == 0
        assert acl.mdl.destroy_dataset(self.inputs) == 0
        assert acl.mdl.destroy_dataset(self.outputs) == 0
        assert acl.mdl.destroy_desc(self.desc) == 0
        assert acl.mdl.unload(self.id) == 0


def read_csv(folder, prefix):
    path = glob.glob(os.path.join(folder, "summary", prefix + "_*.csv"))[0]
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_collection_run_leaves_a_profile(device, mnist_om, mnist_data, onnx_nodes, tmp_path):
    out = str(tmp_path)
    assert acl.prof.init(out) == 0
    model = Model(mnist_om, mnist_data[0][0])
    config = acl.prof.create_config(
        [0], acl.ACL_AICORE_NONE, 0,
        acl.ACL_PROF_ACL_API | acl.ACL_PROF_TASK_TIME | acl.ACL_PROF_MSPROFTX)
    assert config != 0
    assert acl.prof.set_config(acl.ACL_PROF_STORAGE_LIMIT, "500") == 0
    assert acl.prof.start(config) == 0
    stamp = acl.prof.create_stamp()
    assert stamp != 0
    assert acl.prof.set_stamp_trace_message(stamp, "two runs", len("two runs")) == 0
    assert acl.prof.push(stamp) == 0
    model.execute()
    model.execute()
    assert acl.prof.pop() == 0
    range_id, ret = acl.prof.range_start(stamp)
    assert ret == 0
    assert acl.prof.mark(stamp) == 0
    assert acl.prof.range_stop(range_id) == 0
    assert acl.prof.destroy_stamp(stamp) is None
    assert acl.prof.stop(config) == 0
    assert acl.prof.destroy_config(config) == 0
    assert acl.prof.finalize() == 0
    model.close()

    runs = glob.glob(os.path.join(out, "PROF_*"))
    assert len(runs) == 1
    ops = read_csv(runs[0], "op_summary")
    assert {r["Infer ID"] for r in ops} == {"1", "2"}
    for r in ops:
        assert set(r["ONNX Nodes"].split(";")) <= onnx_nodes, r
    apis = {r["API Name"]: r for r in read_csv(runs[0], "api_statistic")}
    assert apis["aclmdlExecute"]["Count"] == "2"
    with open(glob.glob(os.path.join(runs[0], "timeline", "msprof_*.json"))[0]) as f:
        events = json.load(f)["traceEvents"]
    tx = [e for e in events if e.get("cat") == "msproftx"]
    assert [e["name"] for e in tx].count("two runs") == 3  # the push range, the range, the mark
    with open(os.path.join(runs[0], "info.json")) as f:
        assert json.load(f)["settings"]["storage_limit_mb"] == "500"


def test_error_codes(device, tmp_path):
    out = str(tmp_path)
    config = acl.prof.create_config([0], acl.ACL_AICORE_NONE, 0, acl.ACL_PROF_TASK_TIME)
    assert config != 0
    assert acl.prof.start(config) == acl.ACL_ERROR_PROF_NOT_RUN
    assert acl.prof.finalize() == acl.ACL_ERROR_PROF_NOT_RUN
    assert acl.prof.init(out) == 0
    assert acl.prof.init(out) == acl.ACL_ERROR_PROF_ALREADY_RUN
    assert acl.prof.stop(config) == acl.ACL_ERROR_PROF_NOT_RUN
    assert acl.prof.set_config(acl.ACL_PROF_STORAGE_LIMIT, "10") == \
        acl.ACL_ERROR_INVALID_PROFILING_CONFIG
    assert acl.prof.create_config([7], acl.ACL_AICORE_NONE, 0, acl.ACL_PROF_TASK_TIME) == 0
    assert acl.prof.create_config([0], acl.ACL_AICORE_NONE, 0, 1 << 40) == 0
    assert acl.prof.start(0) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.prof.destroy_config(config) == 0
    assert acl.prof.destroy_config(config) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.prof.finalize() == 0
    assert acl.prof.init("") == acl.ACL_ERROR_INVALID_PARAM


def test_model_subscription_records(device, mnist_om, mnist_data, onnx_nodes, tmp_path):
    model = Model(mnist_om, mnist_data[1][0])
    r, w = os.pipe()
    try:
        sub = acl.prof.create_subscribe_config(1, acl.ACL_AICORE_NONE, w)
        assert sub != 0
        assert acl.prof.model_subscribe(model.id, sub) == 0
        assert acl.prof.model_subscribe(model.id, sub) == acl.ACL_ERROR_PROF_REPEAT_SUBSCRIBE
        assert acl.prof.init(str(tmp_path)) == acl.ACL_ERROR_PROF_API_CONFLICT
        model.execute()
        size, ret = acl.prof.get_op_desc_size()
        assert ret == 0 and size > 0
        data = os.read(r, 1 << 20)
        assert len(data) % size == 0
        ptr = acl.util.bytes_to_ptr(data)
        n, ret = acl.prof.get_op_num(ptr, len(data))
        assert ret == 0 and n == len(data) // size and n >= 5
        types = set()
        for i in range(n):
            type_len, ret = acl.prof.get_op_type_len(ptr, len(data), i)
            assert ret == 0
            op_type, ret = acl.prof.get_op_type(ptr, len(data), i, type_len)
            assert ret == 0 and len(op_type) == type_len - 1
            types.add(op_type)
            name_len, ret = acl.prof.get_op_name_len(ptr, len(data), i)
            assert ret == 0
            name, ret = acl.prof.get_op_name(ptr, len(data), i, name_len)
            assert ret == 0
            # A node keeps its ONNX name (a node the compiler derived: that name and a suffix).
            assert any(name == o or name.startswith(o + "_") for o in onnx_nodes), name
            start = acl.prof.get_op_start(ptr, len(data), i)
            end = acl.prof.get_op_end(ptr, len(data), i)
            assert 0 < start <= end
            assert acl.prof.get_op_duration(ptr, len(data), i) == end - start
            assert acl.prof.get_model_id(ptr, len(data), i) == model.id
            assert acl.prof.get_op_flag(ptr, len(data), i) == acl.ACL_SUBSCRIBE_OP
        assert "MaxPool" in types
        # A buffer too short for the name, a length that is not whole records, no memory.
        _, ret = acl.prof.get_op_name(ptr, len(data), 0, 1)
        assert ret == acl.ACL_ERROR_INVALID_PARAM
        _, ret = acl.prof.get_op_num(ptr, len(data) - 1)
        assert ret == acl.ACL_ERROR_INVALID_PARAM
        _, ret = acl.prof.get_op_num(0, len(data))
        assert ret == acl.ACL_ERROR_INVALID_PARAM
        assert acl.prof.get_op_start(ptr, len(data), n) == 0  # index out of range
        assert acl.prof.model_un_subscribe(model.id) == 0
        assert acl.prof.model_un_subscribe(model.id) != 0
        assert acl.prof.destroy_subscribe_config(sub) == 0
    finally:
        os.close(r)
        os.close(w)
        model.close()


def test_step_info(device):
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    info = acl.prof.create_step_info()
    assert info != 0
    assert acl.prof.get_step_timestamp(info, acl.ACL_STEP_END, stream) == \
        acl.ACL_ERROR_INVALID_PARAM  # no start yet
    assert acl.prof.get_step_timestamp(info, acl.ACL_STEP_START, stream) == 0
    assert acl.prof.get_step_timestamp(info, acl.ACL_STEP_END, stream) == 0
    assert acl.prof.get_step_timestamp(info, acl.ACL_STEP_END, stream) == \
        acl.ACL_ERROR_INVALID_PARAM
    assert acl.prof.destroy_step_info(info) is None
    assert acl.rt.destroy_stream(stream) == 0
