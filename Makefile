# objstock: a Linux 7.3 memcg obj_stock patch series and the bench that proves it.
#
#   make              the A/B report: base 7.3 vs patched, in a memcg and in root
#   make scale        the scaling matrix: base vs patched at 1, 2, 4, 8 vCPUs and 1, 8, 32
#                     memcgs (tax curve, transfers, drift vs the bound): results/latest-scale
#   make report       render report.md from RESULTS="a.json b.json ..." (QEMU and real
#                     hardware runs merged; nothing run) into OUT (results/latest)
#   make check        make test, then build the patched kernel, boot it under QEMU, run the tests
#   make test         the harness's own tests (no kernel build, no boot; part of make check)
#   make check-debug  make check on a lockdep + KASAN + KFENCE + DEBUG_VM kernel
#   make tree         a git tree (base + series) to hack in: $CACHE/tree
#   make series       export the tree's commits back to patches/
#   make compare      do two runs agree? RESULTS="a.json b.json": every cut of both, how far
#                     apart, whether each interval holds the other's cut (nothing run)
#   make cover        the cover letter's numbers, from results/latest/results.json
#   make build-each   build the kernel after every patch (each must build on its own)
#   make baseline     re-record what base 7.3 does (expected/base-7.3.txt)
#   make build        build the patched kernel only
#   make pkg          Debian packages of both bench kernels (base, patched) for real
#                     hardware: $CACHE/pkg/{base,patched}/ (PKG_KCONFIG: their config)
#   make shell        an interactive root shell in a guest on the patched kernel
#   make kinsn-selftest  the kinsn plugin's cache model (cache=on) on guests of the patched kernel:
#                     known answers, and a cross-check with QEMU's cache plugin (needs make build)
#   make deps|fetch|tools   install packages | fetch the base source | build the bench tools
#   make knobs        check the knobs (every target that builds or boots does it first)
#   make clean        delete $CACHE/obj and $CACHE/runs;  make distclean: delete $CACHE
#   make help         this, and the knobs (the README's table says what each does)

CACHE ?= $(CURDIR)/build
export CACHE

S := $(CURDIR)/scripts
SHELL := /bin/bash
# the prerequisites below run in order (knobs first)
.NOTPARALLEL:

.PHONY: all scale report compare pkg check check-debug test cover build-each baseline tree series fetch deps build tools shell kinsn-selftest knobs clean distclean help

all:
	@"$(S)/bench.sh"

scale:
	@"$(S)/scale.sh"

# the report alone, nothing run: one report.md (and plots) in OUT from one
# or more results.json (RESULTS, default the latest run); QEMU and real
# hardware runs merged (scripts/objstock/hw.py)
report:
	@python3 "$(S)/report.py" $(or $(RESULTS),$(CURDIR)/results/latest/results.json) "$(or $(OUT),$(CURDIR)/results/latest)"

compare:
	@python3 "$(S)/compare.py" $(RESULTS)

check:
	@"$(S)/check.sh"

test:
	@"$(CURDIR)/tests/run"

cover:
	@"$(S)/cover.sh"

build-each:
	@"$(S)/build-each.sh"

check-debug:
	@DEBUG=1 "$(S)/check.sh"

baseline:
	@"$(S)/baseline.sh"

knobs:
	@bash "$(S)/lib.sh" knobs

deps:
	@"$(S)/deps.sh"

fetch: deps
	@"$(S)/fetch.sh"

tree: fetch
	@"$(S)/tree.sh"
	@echo "tree: $$CACHE/tree (branch objstock; base is tag objstock-base). Commit there, then 'make series'."

series:
	@"$(S)/export.sh"

build: knobs tree
	@. "$(S)/lib.sh" && mapfile -t f < <(fragments "$$TREE" series) && \
		"$(S)/build.sh" "$$TREE" "$$CACHE/obj/patched" "$${f[@]}"

tools:
	@"$(S)/tools-build.sh"

pkg:
	@"$(S)/pkg.sh"

# an interactive guest on the patched kernel (VNG: a vng of your own)
shell: knobs build
	@. "$(S)/lib.sh" && STAGE="make shell" && k=$$CACHE/obj/patched/arch/x86/boot/bzImage && \
		{ [ -f "$$k" ] || die "no kernel at $$k (run 'make build' first)"; } && \
		vng=$${VNG:-$$("$(S)/vng-setup.sh")} && \
		{ "$$vng" --run "$$k" --force-9p --user root $(if $(filter 1,$(KVM)),,--disable-kvm) || true; }

# the known-answer tests of the kinsn plugin's cache model, on the patched
# kernel of make build (not built here: the guests are what takes the time)
kinsn-selftest: knobs tools
	@. "$(S)/lib.sh" && STAGE="make kinsn-selftest" && k=$$CACHE/obj/patched/arch/x86/boot/bzImage && \
		{ [ -f "$$k" ] || die "no kernel at $$k (run 'make build' first)"; } && \
		exec "$(S)/kinsn-selftest.sh" "$$k"

clean:
	@bash "$(S)/lib.sh" clean

distclean:
	@bash "$(S)/lib.sh" distclean

help:
	@sed -n '1,/^$$/s/^# \{0,1\}//p' "$(CURDIR)/Makefile"
	@echo "Knobs (make VAR=value ...; README.md has the table):"
	@sed -n '/^## Knobs/,/^## [^K]/p' "$(CURDIR)/README.md" | grep '^|' | \
		grep -oE '`[A-Z][A-Z0-9_]*`' | tr -d '`' | awk '!seen[$$0]++' | fmt -w 96 | sed 's/^/  /'
