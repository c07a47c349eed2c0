// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0

// include/kiln/kiln_usage.h compiles as C99 (-pedantic -Werror) and has the documented layout:
// sizes and offsets a reader in any language relies on (docs/tools.md, "How processes publish
// their usage").
#include <stddef.h>
#include <stdio.h>

#include "kiln/kiln_usage.h"

#define KILN_STATIC_CHECK(cond, name) typedef char kiln_static_check_##name[(cond) ? 1 : -1]

KILN_STATIC_CHECK(sizeof(kilnUsageDevice) == 40, device_size);
KILN_STATIC_CHECK(offsetof(kilnUsageDevice, bytes_in_use) == 8, device_in_use);
KILN_STATIC_CHECK(offsetof(kilnUsageDevice, updated_ns) == 32, device_updated);
KILN_STATIC_CHECK(sizeof(kilnUsageRecord) == 1384, record_size);
KILN_STATIC_CHECK(offsetof(kilnUsageRecord, pid) == 12, record_pid);
KILN_STATIC_CHECK(offsetof(kilnUsageRecord, start_time) == 16, record_start);
KILN_STATIC_CHECK(offsetof(kilnUsageRecord, name) == 32, record_name);
KILN_STATIC_CHECK(offsetof(kilnUsageRecord, device_slots) == 96, record_slots);
KILN_STATIC_CHECK(offsetof(kilnUsageRecord, devices) == 104, record_devices);

int main(void) {
  const unsigned char* magic = (const unsigned char*)"KLUS";
  unsigned long expected = (unsigned long)magic[0] | (unsigned long)magic[1] << 8 |
                           (unsigned long)magic[2] << 16 | (unsigned long)magic[3] << 24;
  if (KILN_USAGE_MAGIC != expected || KILN_USAGE_MAX_DEVICES != 32 || KILN_USAGE_VERSION != 1) {
    printf("kiln_usage.h: magic %lx (expected %lx), %d device slots, version %u\n",
           (unsigned long)KILN_USAGE_MAGIC, expected, KILN_USAGE_MAX_DEVICES, KILN_USAGE_VERSION);
    return 1;
  }
  printf("kiln_usage.h: layout as documented\n");
  return 0;
}
