/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/kbloom (mapping_dev.c): lookups without a system call
 * (uapi/kbloom.h, "/dev/kbloom").
 */
#ifndef KBLOOM_MAPPING_DEV_H
#define KBLOOM_MAPPING_DEV_H

int kb_map_init(void);
void kb_map_exit(void);

#endif /* KBLOOM_MAPPING_DEV_H */
