#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""The DVPP + AIPP classification pipeline of examples/dvpp_classify as a pyACL application in
the shape of CANN's samples (python/level2_simple_inference/1_classification/vpc_resnet50...): it
knows nothing of Kiln.

    python3 dvpp_classify_pyacl.py [--dynamic-aipp] MODEL.om SCORES_DIR IMAGE.jpg...

JPEG -> acl.media.dvpp_jpeg_decode_async (YUV420SP) -> acl.media.dvpp_vpc_resize_async
(224x224 YUV420SP) -> the model, whose AIPP converts and normalises it (static, or with
--dynamic-aipp the same parameters set per execute through acl.mdl.set_input_aipp). Writes each
image's float32 scores to SCORES_DIR/<name>.scores and prints "<image> top1=<class>".
"""
import os
import sys

import numpy as np

import acl

# constant.py of the samples
ACL_SUCCESS = 0
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
PIXEL_FORMAT_YUV_SEMIPLANAR_420 = 1
ACL_YUV420SP_U8 = 1
SIDE = 224
MEAN = (124, 116, 104)
VAR_RECI = (1 / 58.395, 1 / 57.12, 1 / 57.375)


def check_ret(message, ret):
    if ret != ACL_SUCCESS:
        raise Exception(f"{message} failed ret={ret}: {acl.get_recent_err_msg()}")


def pic_desc(data, size, w, h, ws, hs):
    desc = acl.media.dvpp_create_pic_desc()
    check_ret("dvpp_set_pic_desc_data", acl.media.dvpp_set_pic_desc_data(desc, data))
    check_ret("dvpp_set_pic_desc_size", acl.media.dvpp_set_pic_desc_size(desc, size))
    check_ret("dvpp_set_pic_desc_format",
              acl.media.dvpp_set_pic_desc_format(desc, PIXEL_FORMAT_YUV_SEMIPLANAR_420))
    check_ret("dvpp_set_pic_desc_width", acl.media.dvpp_set_pic_desc_width(desc, w))
    check_ret("dvpp_set_pic_desc_height", acl.media.dvpp_set_pic_desc_height(desc, h))
    check_ret("dvpp_set_pic_desc_width_stride", acl.media.dvpp_set_pic_desc_width_stride(desc, ws))
    check_ret("dvpp_set_pic_desc_height_stride",
              acl.media.dvpp_set_pic_desc_height_stride(desc, hs))
    return desc


class Dvpp:
    def __init__(self, stream):
        self.stream = stream
        self.channel = acl.media.dvpp_create_channel_desc()
        check_ret("dvpp_create_channel", acl.media.dvpp_create_channel(self.channel))
        self.resize_config = acl.media.dvpp_create_resize_config()

    def decode_and_resize(self, jpeg, resized):
        data = np.frombuffer(jpeg, np.uint8)
        ptr = acl.util.bytes_to_ptr(jpeg)
        width, height, _, ret = acl.media.dvpp_jpeg_get_image_info(ptr, len(jpeg))
        check_ret("dvpp_jpeg_get_image_info", ret)
        size, ret = acl.media.dvpp_jpeg_predict_dec_size(ptr, len(jpeg),
                                                         PIXEL_FORMAT_YUV_SEMIPLANAR_420)
        check_ret("dvpp_jpeg_predict_dec_size", ret)
        src, ret = acl.media.dvpp_malloc(len(jpeg))
        check_ret("dvpp_malloc", ret)
        decoded, ret = acl.media.dvpp_malloc(size)
        check_ret("dvpp_malloc", ret)
        check_ret("memcpy", acl.rt.memcpy(src, len(jpeg), data.ctypes.data, len(jpeg),
                                         ACL_MEMCPY_HOST_TO_DEVICE))
        out = pic_desc(decoded, size, width, height, 0, 0)
        check_ret("dvpp_jpeg_decode_async",
                  acl.media.dvpp_jpeg_decode_async(self.channel, src, len(jpeg), out, self.stream))
        check_ret("synchronize_stream", acl.rt.synchronize_stream(self.stream))
        m = acl.media
        src_desc = pic_desc(decoded, size, m.dvpp_get_pic_desc_width(out),
                            m.dvpp_get_pic_desc_height(out), m.dvpp_get_pic_desc_width_stride(out),
                            m.dvpp_get_pic_desc_height_stride(out))
        dst_desc = pic_desc(resized, SIDE * SIDE * 3 // 2, SIDE, SIDE, SIDE, SIDE)
        check_ret("dvpp_vpc_resize_async",
                  m.dvpp_vpc_resize_async(self.channel, src_desc, dst_desc, self.resize_config,
                                          self.stream))
        check_ret("synchronize_stream", acl.rt.synchronize_stream(self.stream))
        for d in (out, src_desc, dst_desc):
            check_ret("dvpp_destroy_pic_desc", m.dvpp_destroy_pic_desc(d))
        check_ret("dvpp_free", m.dvpp_free(src))
        check_ret("dvpp_free", m.dvpp_free(decoded))

    def close(self):
        check_ret("dvpp_destroy_resize_config",
                  acl.media.dvpp_destroy_resize_config(self.resize_config))
        check_ret("dvpp_destroy_channel", acl.media.dvpp_destroy_channel(self.channel))
        check_ret("dvpp_destroy_channel_desc", acl.media.dvpp_destroy_channel_desc(self.channel))


def main(argv):
    dynamic = argv[0] == "--dynamic-aipp"
    if dynamic:
        argv = argv[1:]
    model_path, scores_dir, images = argv[0], argv[1], argv[2:]
    check_ret("acl.init", acl.init())
    check_ret("set_device", acl.rt.set_device(0))
    context, ret = acl.rt.create_context(0)
    check_ret("create_context", ret)
    stream, ret = acl.rt.create_stream()
    check_ret("create_stream", ret)
    dvpp = Dvpp(stream)
    model_id, ret = acl.mdl.load_from_file(model_path)
    check_ret("load_from_file", ret)
    desc = acl.mdl.create_desc()
    check_ret("get_desc", acl.mdl.get_desc(desc, model_id))

    picture, ret = acl.media.dvpp_malloc(SIDE * SIDE * 3 // 2)
    check_ret("dvpp_malloc", ret)
    inputs = acl.mdl.create_dataset()
    buffers = [acl.create_data_buffer(picture, acl.mdl.get_input_size_by_index(desc, 0))]
    aipp_set = None
    if dynamic:
        index, ret = acl.mdl.get_input_index_by_name(desc, "ascend_dynamic_aipp_data")
        check_ret("get_input_index_by_name", ret)
        aipp_bytes = acl.mdl.get_input_size_by_index(desc, index)
        aipp_data, ret = acl.rt.malloc(aipp_bytes, ACL_MEM_MALLOC_HUGE_FIRST)
        check_ret("rt.malloc", ret)
        buffers.append(acl.create_data_buffer(aipp_data, aipp_bytes))
        aipp_set = acl.mdl.create_aipp(1)
        check_ret("set_aipp_input_format", acl.mdl.set_aipp_input_format(aipp_set, ACL_YUV420SP_U8))
        check_ret("set_aipp_src_image_size", acl.mdl.set_aipp_src_image_size(aipp_set, SIDE, SIDE))
        check_ret("set_aipp_csc_params", acl.mdl.set_aipp_csc_params(
            aipp_set, 1, 256, 0, 359, 256, -88, -183, 256, 454, 0, 0, 0, 0, 0, 128, 128))
        check_ret("set_aipp_dtc_pixel_mean", acl.mdl.set_aipp_dtc_pixel_mean(aipp_set, *MEAN, 0, 0))
        check_ret("set_aipp_pixel_var_reci",
                  acl.mdl.set_aipp_pixel_var_reci(aipp_set, *VAR_RECI, 1.0, 0))
    for b in buffers:
        _, ret = acl.mdl.add_dataset_buffer(inputs, b)
        check_ret("add_dataset_buffer", ret)
    out_bytes = acl.mdl.get_output_size_by_index(desc, 0)
    out_dev, ret = acl.rt.malloc(out_bytes, ACL_MEM_MALLOC_HUGE_FIRST)
    check_ret("rt.malloc", ret)
    outputs = acl.mdl.create_dataset()
    out_buffer = acl.create_data_buffer(out_dev, out_bytes)
    _, ret = acl.mdl.add_dataset_buffer(outputs, out_buffer)
    check_ret("add_dataset_buffer", ret)

    scores = np.empty(out_bytes // 4, np.float32)
    for image in images:
        with open(image, "rb") as f:
            dvpp.decode_and_resize(f.read(), picture)
        if dynamic:
            check_ret("set_input_aipp", acl.mdl.set_input_aipp(model_id, inputs, index, aipp_set))
        check_ret("execute", acl.mdl.execute(model_id, inputs, outputs))
        check_ret("memcpy", acl.rt.memcpy(scores.ctypes.data, out_bytes, out_dev, out_bytes,
                                         ACL_MEMCPY_DEVICE_TO_HOST))
        scores.tofile(os.path.join(scores_dir, os.path.basename(image) + ".scores"))
        print(f"{image} top1={int(np.argmax(scores))}")

    if aipp_set is not None:
        check_ret("destroy_aipp", acl.mdl.destroy_aipp(aipp_set))
        check_ret("rt.free", acl.rt.free(aipp_data))
    for b in buffers + [out_buffer]:
        check_ret("destroy_data_buffer", acl.destroy_data_buffer(b))
    check_ret("destroy_dataset", acl.mdl.destroy_dataset(inputs))
    check_ret("destroy_dataset", acl.mdl.destroy_dataset(outputs))
    check_ret("dvpp_free", acl.media.dvpp_free(picture))
    check_ret("rt.free", acl.rt.free(out_dev))
    check_ret("destroy_desc", acl.mdl.destroy_desc(desc))
    check_ret("unload", acl.mdl.unload(model_id))
    dvpp.close()
    check_ret("destroy_stream", acl.rt.destroy_stream(stream))
    check_ret("destroy_context", acl.rt.destroy_context(context))
    check_ret("reset_device", acl.rt.reset_device(0))
    check_ret("finalize", acl.finalize())


if __name__ == "__main__":
    main(sys.argv[1:])
