/* Copyright 2026 The Kiln Authors
 * SPDX-License-Identifier: Apache-2.0
 *
 * The per-process usage record: how a process using Kiln tells other processes (`kiln smi`)
 * which devices it holds and how much of their memory. C99 and C++; declares no function, only
 * the file's layout, so a reader needs no part of the runtime.
 *
 * Where: one file per process, <dir>/<pid>.usage, where <dir> is
 *   $KILN_USAGE_DIR when set (`none` switches publishing off),
 *   else /dev/shm/kiln-<uid>, else $XDG_RUNTIME_DIR/kiln, else /tmp/kiln-<uid>
 * (the first that can be used). The runtime creates the file when the process first opens a
 * device (aclrtSetDevice), under a temporary name renamed into place once complete, and removes
 * it at aclFinalize and at exit. A process killed by a signal leaves its file behind: a reader
 * treats a record whose pid is gone, or whose pid now belongs to a process started at another
 * time (start_time differs), as stale and may delete it.
 *
 * How it is updated: the file is a kilnUsageRecord mapped shared into the process; the memory
 * pool stores the new byte counts into its device's slot on every allocation, free and trim
 * (two aligned 64-bit stores, no system call). Every 64-bit field is written with one aligned
 * atomic store, so a reader that maps the file and loads each field once sees no torn value;
 * bytes_in_use and bytes_reserved of one slot may come from two consecutive updates.
 *
 * Byte order and alignment are the host's; the layout has no padding (the sizes below are
 * checked by the runtime and the tests). A reader accepts a record only when magic, version
 * and record_size match and pid matches the file name; anything else is skipped.
 */
#ifndef KILN_KILN_USAGE_H_
#define KILN_KILN_USAGE_H_

#include <stdint.h>

#define KILN_USAGE_MAGIC 0x53554C4Bu /* "KLUS" in little-endian byte order */
#define KILN_USAGE_VERSION 1u
#define KILN_USAGE_MAX_DEVICES 32 /* device ids 0..31 are published; higher ids are not */
#define KILN_USAGE_NAME_SIZE 64   /* process name, NUL-terminated */
#define KILN_USAGE_SUFFIX ".usage"
#define KILN_USAGE_DIR_ENV "KILN_USAGE_DIR"

/* One device of the process (slot index == logical device id in that process). 40 bytes. */
typedef struct kilnUsageDevice {
  uint32_t open;           /* 1 while the process has the device open, else 0 */
  int32_t device_id;       /* logical id (after the process's ASCEND_RT_VISIBLE_DEVICES) */
  uint64_t bytes_in_use;   /* bytes of live allocations (aclrtMalloc blocks, in size classes) */
  uint64_t bytes_reserved; /* bytes the process's pool holds from the device: live + cached */
  uint64_t capacity;       /* the pool's capacity (KILN_DEVICE_MEMORY_LIMIT or the device's) */
  uint64_t updated_ns;     /* CLOCK_REALTIME of the slot's last update, ns since the epoch */
} kilnUsageDevice;

/* The whole file. 1384 bytes. */
typedef struct kilnUsageRecord {
  uint32_t magic;       /* KILN_USAGE_MAGIC */
  uint32_t version;     /* KILN_USAGE_VERSION */
  uint32_t record_size; /* sizeof(kilnUsageRecord) */
  int32_t pid;
  uint64_t start_time; /* field 22 of /proc/<pid>/stat (clock ticks after boot); 0 if unknown */
  uint64_t created_ns; /* CLOCK_REALTIME when the record was made */
  char name[KILN_USAGE_NAME_SIZE]; /* /proc/<pid>/comm, NUL-terminated */
  uint32_t device_slots;           /* KILN_USAGE_MAX_DEVICES */
  uint32_t reserved0;              /* 0 */
  kilnUsageDevice devices[KILN_USAGE_MAX_DEVICES];
} kilnUsageRecord;

#endif /* KILN_KILN_USAGE_H_ */
