// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// kiln.hpp: a header-only C++17 layer over the AscendCL C API (docs/cpp.md). Every object owns
// its handle and releases it in its destructor; a failed call throws kiln::AclError carrying the
// aclError code and the runtime's message. Nothing here is Kiln-specific: it builds against any
// AscendCL install.
//
//   kiln::Runtime rt;                          // aclInit / aclFinalize
//   kiln::Device dev(0);                       // aclrtSetDevice / aclrtResetDevice
//   kiln::Stream stream;
//   kiln::Model model("resnet50.om");
//   kiln::DeviceBuffer in(model.input_size(0)), out(model.output_size(0));
//   in.copy_from(kiln::Span<const float>(host.data(), host.size()));
//   model.execute({&in}, {&out}, stream);      // aclmdlExecuteAsync
//   stream.synchronize();
//   out.copy_to(kiln::Span<float>(scores.data(), scores.size()));
#ifndef KILN_KILN_HPP_
#define KILN_KILN_HPP_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"

namespace kiln {

// A failed AscendCL call: what() names the call and gives the runtime's message.
class AclError : public std::runtime_error {
 public:
  AclError(aclError code, const std::string& what) : std::runtime_error(what), code_(code) {}
  aclError code() const noexcept { return code_; }

 private:
  aclError code_;
};

// Throws kiln::AclError for a non-zero `code` of the call `what`.
inline void Check(aclError code, const char* what) {
  if (code == ACL_SUCCESS) return;
  const char* msg = aclGetRecentErrMsg();
  throw AclError(code, std::string(what) + " failed with aclError " + std::to_string(code) +
                           (msg != nullptr ? std::string(": ") + msg : std::string()));
}

// A view of `size` elements at `data` (C++17 has no std::span).
template <typename T>
class Span {
 public:
  Span() = default;
  Span(T* data, size_t size) : data_(data), size_(size) {}
  template <typename Container>
  Span(Container& c) : data_(c.data()), size_(c.size()) {}  // NOLINT: implicit, as std::span
  T* data() const { return data_; }
  size_t size() const { return size_; }
  size_t size_bytes() const { return size_ * sizeof(T); }
  T& operator[](size_t i) const { return data_[i]; }
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

// aclInit on construction, aclFinalize on destruction. One per process.
class Runtime {
 public:
  explicit Runtime(const char* config_path = nullptr) { Check(aclInit(config_path), "aclInit"); }
  ~Runtime() { aclFinalize(); }
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
};

// The calling thread's current device, reset when this object ends.
class Device {
 public:
  explicit Device(int32_t id) : id_(id) { Check(aclrtSetDevice(id), "aclrtSetDevice"); }
  ~Device() { aclrtResetDevice(id_); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  int32_t id() const { return id_; }
  static uint32_t count() {
    uint32_t n = 0;
    Check(aclrtGetDeviceCount(&n), "aclrtGetDeviceCount");
    return n;
  }

 private:
  int32_t id_;
};

// Movable owner of one handle type: `Destroy` releases it.
template <typename Handle, aclError (*Destroy)(Handle)>
class Owned {
 public:
  Owned() = default;
  explicit Owned(Handle h) : h_(h) {}
  ~Owned() { reset(); }
  Owned(Owned&& o) noexcept : h_(std::exchange(o.h_, Handle{})) {}
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, Handle{});
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Handle get() const { return h_; }
  void reset() {
    if (h_ != Handle{}) Destroy(std::exchange(h_, Handle{}));
  }

 private:
  Handle h_{};
};

class Stream {
 public:
  Stream() {
    aclrtStream s = nullptr;
    Check(aclrtCreateStream(&s), "aclrtCreateStream");
    s_ = Owned<aclrtStream, aclrtDestroyStream>(s);
  }
  aclrtStream get() const { return s_.get(); }
  void synchronize() const { Check(aclrtSynchronizeStream(get()), "aclrtSynchronizeStream"); }

 private:
  Owned<aclrtStream, aclrtDestroyStream> s_;
};

class Event {
 public:
  Event() {
    aclrtEvent e = nullptr;
    Check(aclrtCreateEvent(&e), "aclrtCreateEvent");
    e_ = Owned<aclrtEvent, aclrtDestroyEvent>(e);
  }
  aclrtEvent get() const { return e_.get(); }
  void record(const Stream& s) const {
    Check(aclrtRecordEvent(get(), s.get()), "aclrtRecordEvent");
  }
  void synchronize() const { Check(aclrtSynchronizeEvent(get()), "aclrtSynchronizeEvent"); }
  // Milliseconds from `start` to this event (both recorded and complete).
  float elapsed_since(const Event& start) const {
    float ms = 0;
    Check(aclrtEventElapsedTime(&ms, start.get(), get()), "aclrtEventElapsedTime");
    return ms;
  }

 private:
  Owned<aclrtEvent, aclrtDestroyEvent> e_;
};

// Device memory of `size` bytes (aclrtMalloc).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t size) : size_(size) {
    void* p = nullptr;
    Check(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    p_ = Owned<void*, aclrtFree>(p);
  }
  void* data() const { return p_.get(); }
  size_t size() const { return size_; }
  // Copies all of `host` into the start of this buffer (it must fit).
  template <typename T>
  void copy_from(Span<const T> host) {
    Check(aclrtMemcpy(data(), size_, host.data(), host.size_bytes(), ACL_MEMCPY_HOST_TO_DEVICE),
          "aclrtMemcpy (host to device)");
  }
  // Fills `host` from the start of this buffer.
  template <typename T>
  void copy_to(Span<T> host) const {
    Check(aclrtMemcpy(host.data(), host.size_bytes(), data(), host.size_bytes(),
                      ACL_MEMCPY_DEVICE_TO_HOST),
          "aclrtMemcpy (device to host)");
  }

 private:
  Owned<void*, aclrtFree> p_;
  size_t size_ = 0;
};

// A loaded model (aclmdlLoadFromFile) and its description.
class Model {
 public:
  explicit Model(const std::string& om_path) {
    Check(aclmdlLoadFromFile(om_path.c_str(), &id_), "aclmdlLoadFromFile");
    desc_ = aclmdlCreateDesc();
    if (desc_ == nullptr) {
      aclmdlUnload(id_);
      Check(ACL_ERROR_BAD_ALLOC, "aclmdlCreateDesc");
    }
    aclError e = aclmdlGetDesc(desc_, id_);
    if (e != ACL_SUCCESS) {
      aclmdlDestroyDesc(desc_);
      aclmdlUnload(id_);
      Check(e, "aclmdlGetDesc");
    }
  }
  ~Model() {
    if (desc_ != nullptr) {
      aclmdlDestroyDesc(desc_);
      aclmdlUnload(id_);
    }
  }
  Model(Model&& o) noexcept : id_(o.id_), desc_(std::exchange(o.desc_, nullptr)) {}
  Model& operator=(Model&&) = delete;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  uint32_t id() const { return id_; }
  size_t num_inputs() const { return aclmdlGetNumInputs(desc_); }
  size_t num_outputs() const { return aclmdlGetNumOutputs(desc_); }
  size_t input_size(size_t i) const { return aclmdlGetInputSizeByIndex(desc_, i); }
  size_t output_size(size_t i) const { return aclmdlGetOutputSizeByIndex(desc_, i); }
  std::string input_name(size_t i) const {
    const char* n = aclmdlGetInputNameByIndex(desc_, i);
    return n != nullptr ? n : "";
  }
  std::vector<int64_t> input_dims(size_t i) const { return Dims(aclmdlGetInputDims, i); }
  std::vector<int64_t> output_dims(size_t i) const { return Dims(aclmdlGetOutputDims, i); }

  // Runs on `stream` (asynchronously) with these buffers as inputs and outputs, in order.
  void execute(std::initializer_list<const DeviceBuffer*> inputs,
               std::initializer_list<const DeviceBuffer*> outputs, const Stream& stream) const {
    Dataset in(inputs), out(outputs);
    Check(aclmdlExecuteAsync(id_, in.get(), out.get(), stream.get()), "aclmdlExecuteAsync");
  }
  // Runs and waits (aclmdlExecute).
  void execute(std::initializer_list<const DeviceBuffer*> inputs,
               std::initializer_list<const DeviceBuffer*> outputs) const {
    Dataset in(inputs), out(outputs);
    Check(aclmdlExecute(id_, in.get(), out.get()), "aclmdlExecute");
  }

 private:
  // A dataset of data buffers over the given device buffers (all released at scope end).
  class Dataset {
   public:
    explicit Dataset(std::initializer_list<const DeviceBuffer*> buffers) {
      ds_ = aclmdlCreateDataset();
      if (ds_ == nullptr) Check(ACL_ERROR_BAD_ALLOC, "aclmdlCreateDataset");
      for (const DeviceBuffer* b : buffers) {
        aclDataBuffer* db = aclCreateDataBuffer(b->data(), b->size());
        if (db == nullptr) {
          Release();
          Check(ACL_ERROR_BAD_ALLOC, "aclCreateDataBuffer");
        }
        aclError e = aclmdlAddDatasetBuffer(ds_, db);
        if (e != ACL_SUCCESS) {
          aclDestroyDataBuffer(db);
          Release();
          Check(e, "aclmdlAddDatasetBuffer");
        }
      }
    }
    ~Dataset() { Release(); }
    Dataset(const Dataset&) = delete;
    Dataset& operator=(const Dataset&) = delete;
    aclmdlDataset* get() const { return ds_; }

   private:
    void Release() {
      if (ds_ == nullptr) return;
      for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(ds_); ++i) {
        aclDestroyDataBuffer(aclmdlGetDatasetBuffer(ds_, i));
      }
      aclmdlDestroyDataset(std::exchange(ds_, nullptr));
    }
    aclmdlDataset* ds_ = nullptr;
  };

  std::vector<int64_t> Dims(aclError (*get)(const aclmdlDesc*, size_t, aclmdlIODims*),
                            size_t i) const {
    aclmdlIODims d{};
    Check(get(desc_, i, &d), "aclmdlGet*Dims");
    return std::vector<int64_t>(d.dims, d.dims + d.dimCount);
  }

  uint32_t id_ = 0;
  aclmdlDesc* desc_ = nullptr;
};

}  // namespace kiln

#endif  // KILN_KILN_HPP_
