/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef KBLOOM_LIMIT_FIGURES_H
#define KBLOOM_LIMIT_FIGURES_H

#include "nl.h"

/*
 * After a CREATE refused at a module limit: when the kernel's message
 * names the limit without figures (6.1 has only static extack messages),
 * appends them from STATUS to nl->error.kmsg. Leaves the error as it was
 * when STATUS cannot be had.
 */
void kb_nl_limit_figures(struct kb_nl *nl);

#endif
