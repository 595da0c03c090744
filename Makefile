# kbloom — see README.md.
#   make          build kmod/kbloom.ko and userspace/bloomctl
#   make check    install dependencies, build, run every test tier
#   make demo     install dependencies, build, run the demo in the test VM
#   make style    checkpatch --strict on the kernel sources
#   make clean

KVER := $(shell scripts/kver)
# The kernel the test VM boots: check and demo always build for it.
VM_KDIR := /lib/modules/$(KVER)/build
# A plain `make` builds for the running kernel when its headers are there.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) $(VM_KDIR))

KERNEL_SOURCES := $(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h kmod/engine/*.c kmod/engine/*.h)) \
	kmod/uapi/kbloom.h

all: kmod userspace

kmod:
	$(MAKE) -C kmod KDIR=$(KDIR)

userspace:
	$(MAKE) -C userspace

deps:
	scripts/deps

# Everything the test tiers need, built for the VM's kernel.
test-build: deps
	$(MAKE) -C kmod KDIR=$(VM_KDIR)
	$(MAKE) -C userspace
	$(MAKE) -C tests/unit
	$(MAKE) -C tests/vm

check: test-build
	tests/run

demo: deps
	$(MAKE) -C kmod KDIR=$(VM_KDIR)
	$(MAKE) -C userspace
	scripts/vm --timeout 900 scripts/demo

style:
	perl $$(scripts/ksrc)/scripts/checkpatch.pl --no-tree --strict --terse \
		--ignore FILE_PATH_CHANGES -f $(KERNEL_SOURCES)

clean:
	$(MAKE) -C kmod KDIR=$(KDIR) clean
	$(MAKE) -C userspace clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/vm clean

.PHONY: all kmod userspace deps test-build check demo style clean
