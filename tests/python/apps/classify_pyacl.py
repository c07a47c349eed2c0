#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""A pyACL image-classification application in the shape of CANN's samples
(python/level2_simple_inference/1_classification): it knows nothing of Kiln.

    python3 classify_pyacl.py MODEL.om INPUT.bin [INPUT.bin ...]

Each INPUT.bin is a preprocessed float32 tensor of the model's input size. Prints one line per
input: "<file> top1=<class> top5=<c1,c2,...> logits=<v0,v1,...>".
"""
import sys

import numpy as np

import acl

# constant.py of the samples
ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
NPY_FLOAT32 = 11


def check_ret(message, ret):
    if ret != ACL_SUCCESS:
        raise Exception(f"{message} failed ret={ret}: {acl.get_recent_err_msg()}")


class Net:
    def __init__(self, device_id, model_path):
        self.device_id = device_id
        self.context = None
        self.stream = None
        self.model_id = None
        self.model_desc = None
        self.input_dataset = None
        self.output_dataset = None
        self.input_buffers = []
        self.output_buffers = []
        self.init_resource(model_path)

    def init_resource(self, model_path):
        check_ret("acl.init", acl.init())
        check_ret("acl.rt.set_device", acl.rt.set_device(self.device_id))
        self.context, ret = acl.rt.create_context(self.device_id)
        check_ret("acl.rt.create_context", ret)
        self.stream, ret = acl.rt.create_stream()
        check_ret("acl.rt.create_stream", ret)
        run_mode, ret = acl.rt.get_run_mode()
        check_ret("acl.rt.get_run_mode", ret)
        self.model_id, ret = acl.mdl.load_from_file(model_path)
        check_ret("acl.mdl.load_from_file", ret)
        self.model_desc = acl.mdl.create_desc()
        check_ret("acl.mdl.get_desc", acl.mdl.get_desc(self.model_desc, self.model_id))
        self.input_dataset = self._dataset(acl.mdl.get_num_inputs(self.model_desc),
                                           acl.mdl.get_input_size_by_index, self.input_buffers)
        self.output_dataset = self._dataset(acl.mdl.get_num_outputs(self.model_desc),
                                            acl.mdl.get_output_size_by_index, self.output_buffers)

    def _dataset(self, count, size_of, buffers):
        dataset = acl.mdl.create_dataset()
        for i in range(count):
            size = size_of(self.model_desc, i)
            ptr, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
            check_ret("acl.rt.malloc", ret)
            data = acl.create_data_buffer(ptr, size)
            _, ret = acl.mdl.add_dataset_buffer(dataset, data)
            check_ret("acl.mdl.add_dataset_buffer", ret)
            buffers.append({"ptr": ptr, "size": size, "data": data})
        return dataset

    def run(self, image_bytes):
        buf = self.input_buffers[0]
        if "bytes_to_ptr" in dir(acl.util):
            ptr = acl.util.bytes_to_ptr(image_bytes)
        else:
            ptr = acl.util.numpy_to_ptr(np.frombuffer(image_bytes, dtype=np.uint8))
        ret = acl.rt.memcpy(buf["ptr"], buf["size"], ptr, len(image_bytes),
                            ACL_MEMCPY_HOST_TO_DEVICE)
        check_ret("acl.rt.memcpy", ret)
        check_ret("acl.mdl.execute",
                  acl.mdl.execute(self.model_id, self.input_dataset, self.output_dataset))
        out = self.output_buffers[0]
        host, ret = acl.rt.malloc_host(out["size"])
        check_ret("acl.rt.malloc_host", ret)
        ret = acl.rt.memcpy(host, out["size"], out["ptr"], out["size"], ACL_MEMCPY_DEVICE_TO_HOST)
        check_ret("acl.rt.memcpy", ret)
        dims, ret = acl.mdl.get_cur_output_dims(self.model_desc, 0)
        check_ret("acl.mdl.get_cur_output_dims", ret)
        if "ptr_to_bytes" in dir(acl.util):
            data = acl.util.ptr_to_bytes(host, out["size"])
            logits = np.frombuffer(data, dtype=np.float32).reshape(tuple(dims["dims"]))
        else:
            logits = acl.util.ptr_to_numpy(host, tuple(dims["dims"]), NPY_FLOAT32).copy()
        check_ret("acl.rt.free_host", acl.rt.free_host(host))
        return logits.reshape(-1)

    def release_resource(self):
        for dataset, buffers in ((self.input_dataset, self.input_buffers),
                                 (self.output_dataset, self.output_buffers)):
            for b in buffers:
                acl.destroy_data_buffer(b["data"])
                acl.rt.free(b["ptr"])
            acl.mdl.destroy_dataset(dataset)
        check_ret("acl.mdl.unload", acl.mdl.unload(self.model_id))
        acl.mdl.destroy_desc(self.model_desc)
        check_ret("acl.rt.destroy_stream", acl.rt.destroy_stream(self.stream))
        check_ret("acl.rt.destroy_context", acl.rt.destroy_context(self.context))
        check_ret("acl.rt.reset_device", acl.rt.reset_device(self.device_id))
        check_ret("acl.finalize", acl.finalize())


def main(argv):
    net = Net(0, argv[1])
    for path in argv[2:]:
        with open(path, "rb") as f:
            image = f.read()
        logits = net.run(image)
        top5 = np.argsort(-logits)[:5]
        print(f"{path} top1={top5[0]} top5={','.join(str(c) for c in top5)} "
              f"logits={','.join(repr(float(v)) for v in logits)}")
    net.release_resource()


if __name__ == "__main__":
    main(sys.argv)
