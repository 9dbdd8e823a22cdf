// The subcommands of the sm120check CLI, one setup_<cmd>() / run_<cmd>() pair each (after
// CLI11's subcom_in_files example). main.cpp owns the option structs, parses, and dispatches.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli11.hpp"
#include "output.hpp"
#include "sm120check/git.hpp"
#include "sm120check/report.hpp"
#include "sm120check/search.hpp"

namespace sm120check::cli {

/// What setup_<cmd>() adds to the app: the command with all its options, or nothing (it then
/// returns nullptr) for a command the command line cannot reach (main.cpp, setup_for(): its
/// first word names another command and no other word names one). CLI11 makes each option
/// twice and checks its names against every option added before (CLI/App.hpp add_option(),
/// copying the name lists): setting up the seven commands a run does not use cost a fifth of
/// `verify`'s option parsing.
enum class Setup { kFull, kNone };

/// Options of `sm120check verify [options] PATCH... TARGET`.
struct VerifyCommandOptions {
  std::vector<std::string> patches;  ///< files, directories, or "-" for standard input.
  std::string target;                ///< the tree to verify against.
  std::optional<unsigned> strip;     ///< -p/--strip; unset = detect per patch.
  unsigned fuzz = 0;
  bool ignore_whitespace = false;
  bool strict = false;            ///< --strict: exact images only (no drift search).
  bool independent = false;       ///< --independent: judge each patch alone, not as a series.
  unsigned threads = 0;           ///< -j/--threads: 0 = one per CPU (VerifyOptions::threads).
  std::optional<std::string> cc;  ///< --cc: assume this GPU instead of probing.
  bool no_gpu = false;            ///< --no-gpu: do not probe (GPU source "none").
  bool only_relevant = false;     ///< --only-relevant: skip patches for other architectures.
  std::vector<std::string> revs;  ///< --rev: verify these revisions of TARGET's repository.
  bool no_repo = false;           ///< --no-repo: no repository section (libgit2 is not loaded).
  OutputOptions output;  ///< --format, --color, --output, -q/--quiet
  bool markers = false;                     ///< --markers: search every patch's markers.
  std::vector<std::string> marker_texts;    ///< --marker TEXT (fixed strings).
  std::vector<std::string> marker_regexes;  ///< --marker-regex RE (PCRE2).
  std::vector<std::string> maps;            ///< --map OLD=NEW.
  bool no_relocate = false;
  std::vector<PathRule> path_rules;  ///< --include / --exclude, in command-line order.
};

/// Options of `sm120check apply [options] PATCH... TARGET`.
struct ApplyCommandOptions {
  std::vector<std::string> patches;  ///< files, directories, or "-" for standard input.
  std::string target;                ///< the directory written.
  std::optional<unsigned> strip;
  unsigned fuzz = 0;
  bool ignore_whitespace = false;
  bool strict = false;
  bool dry_run = false;   ///< --dry-run: print a unified diff of the result, write nothing.
  bool reverse = false;   ///< --reverse: take the series out.
  bool backup = false;    ///< --backup: keep FILE.orig.
  std::vector<std::string> maps;
  std::vector<PathRule> path_rules;  ///< --include / --exclude, in command-line order.
  bool relocate = false;  ///< --relocate: write relocated files (off: only named paths).
  std::vector<std::string> revs;  ///< --rev: refused (apply writes a work tree).
  /// --cc and --no-gpu: accepted (and checked) as verify takes them, so that scripts can pass
  /// the same options to both; apply neither probes nor judges the GPU.
  std::optional<std::string> cc;
  bool no_gpu = false;
  OutputOptions output;  ///< --format, --color, --output, -q/--quiet
};

/// Exit codes of `sm120check apply`, its help footer.
inline constexpr const char* kApplyExitCodesHelp =
    "Exit codes:\n"
    "  0  nothing left to do: every patch is applied now (with --reverse: none is in);\n"
    "     with --dry-run: nothing would change\n"
    "  1  --dry-run only: files would change (the diff shows how)\n"
    "  2  nothing written: a patch conflicts or cannot be decided (the report says which;\n"
    "     a submodule change is never written: update it with git submodule update)\n"
    "  3  error: bad patch, missing target, usage error, a patch or file with status error,\n"
    "     a write that failed, or a file changed while apply ran (the message names the file)\n";

/// Adds the `apply` subcommand to `app`. Returns the subcommand.
CLI::App* setup_apply(CLI::App& app, ApplyCommandOptions& options, Setup setup = Setup::kFull);

/// Runs `apply`; returns its exit code (kApplyExitCodesHelp). Throws Error for input it cannot
/// process and for a failed write.
int run_apply(const ApplyCommandOptions& options);

/// Adds the `verify` subcommand to `app`, parsing into `options`. Returns the subcommand.
CLI::App* setup_verify(CLI::App& app, VerifyCommandOptions& options, Setup setup = Setup::kFull);

/// Runs `verify`; returns the process exit code (see kExitCodesHelp). Throws Error for input it
/// cannot process (unreadable patch, malformed patch, missing target).
int run_verify(const VerifyCommandOptions& options);

/// Options of `sm120check grep [options] TARGET PATTERN...`.
struct GrepCommandOptions {
  std::string target;
  std::vector<std::string> patterns;  ///< fixed strings, or PCRE2 patterns with --regex.
  bool regex = false;
  std::vector<std::string> patches;  ///< --patch: also search these patches' markers.
  bool gitignore = false;
  std::uint64_t max_filesize = 32ull << 20;
  unsigned threads = 0;
  OutputOptions output;  ///< --format, --color, --output, -q/--quiet
};

/// Adds the `grep` subcommand to `app`, parsing into `options`. Returns the subcommand.
CLI::App* setup_grep(CLI::App& app, GrepCommandOptions& options, Setup setup = Setup::kFull);

/// Runs `grep`; returns 0 when every pattern has a hit, 1 when one has none. Throws Error for a
/// missing target, a bad regular expression or an unreadable patch.
int run_grep(const GrepCommandOptions& options);

/// Options of `sm120check show PATCH...`.
struct ShowCommandOptions {
  std::vector<std::string> patches;
  OutputOptions output;  ///< --format, --color, --output, -q/--quiet
};

/// Adds the `show` subcommand to `app`, parsing into `options`. Returns the subcommand.
CLI::App* setup_show(CLI::App& app, ShowCommandOptions& options, Setup setup = Setup::kFull);

/// Runs `show`; returns 0. Throws Error for unreadable or malformed patches.
int run_show(const ShowCommandOptions& options);

/// Exit codes of `sm120check gpu`, its help footer.
inline constexpr const char* kGpuExitCodesHelp =
    "Exit codes:\n"
    "  0  at least one CUDA device found (or --cc given)\n"
    "  1  no CUDA device, or no CUDA driver, on this host\n"
    "  2  the probe failed: driver too old for the runtime, another CUDA or NVML error, or this\n"
    "     binary was built without CUDA and NVML is missing\n"
    "  3  usage error (e.g. a bad --cc)\n";

/// Options of `sm120check gpu`.
struct GpuCommandOptions {
  std::optional<std::string> cc;  ///< --cc: report this capability instead of probing.
  bool limits = false;            ///< --limits: every limit, through the CUDA runtime.
  OutputOptions output;  ///< --format, --color, --output, -q/--quiet
};

/// Exit codes of `sm120check kernels`, its help footer (kernels_exit_code).
inline constexpr const char* kKernelsExitCodesHelp =
    "Exit codes:\n"
    "  0  in every file, the modules that have an image for the GPU run SASS (exact or\n"
    "     compatible), or nothing to judge (no GPU known, no CUDA code). Modules built for\n"
    "     other architectures only are counted in the report, not here\n"
    "  1  some file runs only as PTX the driver must JIT-compile (slow first start)\n"
    "  2  some file has no kernel image for the GPU in any module (\"no kernel image is\n"
    "     available\"), or a module is partial: its cubin for the GPU lacks functions\n"
    "     another of its cubins has, or a module's functions could not be compared\n"
    "     (\"functions not compared\": a cubin or PTX too large to decompress)\n"
    "  3  error: a file unreadable or malformed (listed with its error), a missing PATH, or a\n"
    "     usage error\n";

/// Options of `sm120check kernels [--cc CC]... [--entries] PATH...`.
struct KernelsCommandOptions {
  std::vector<std::string> paths;  ///< files or directories (walked, symlinks not followed)
  std::vector<std::string> ccs;    ///< --cc: judge for these instead of probing
  bool no_gpu = false;             ///< --no-gpu: list only
  bool entries = false;            ///< --entries: every fat binary and entry in text output
  OutputOptions output;  ///< --format, --color, --output, -q/--quiet
};

/// Adds the `kernels` subcommand to `app`. Returns the subcommand.
CLI::App* setup_kernels(CLI::App& app, KernelsCommandOptions& options,
                        Setup setup = Setup::kFull);

/// Runs `kernels`; returns its exit code (kKernelsExitCodesHelp). Throws Error for a missing
/// PATH or an unreadable directory; a file that cannot be read is reported in the output.
int run_kernels(const KernelsCommandOptions& options);

/// Options of `sm120check log [options] PATCH... TARGET`.
struct LogCommandOptions {
  std::vector<std::string> patches;
  std::string target;
  std::string range = "HEAD";        ///< --rev: "TIP" or "A..B".
  std::vector<std::string> in_refs;  ///< --in REF.
  std::optional<unsigned> strip;
  unsigned fuzz = 0;
  bool ignore_whitespace = false;
  bool strict = false;   ///< --strict: exact images only (no drift search).
  unsigned threads = 0;  ///< -j: threads verifying file states; 0 = one per CPU.
  /// --cc and --no-gpu: accepted (and checked) as verify takes them, so that scripts can pass
  /// the same options to both; log neither probes nor judges the GPU.
  std::optional<std::string> cc;
  bool no_gpu = false;
  OutputOptions output;  ///< --format, --color, --output, -q/--quiet
};

/// Exit codes of `sm120check scan`, its help footer.
inline constexpr const char* kScanExitCodesHelp =
    "Exit codes:\n"
    "  0  every fix judged in an install is present (also: none of the catalog's projects is\n"
    "     installed), no shared object lacks a kernel image, and the walk was complete\n"
    "  1  at least one fix is missing, or a shared object with CUDA code has no kernel image\n"
    "     for the GPU (probed or --cc) (whatever the others are)\n"
    "  2  neither, and at least one fix is unknown (the report says why), a shared object\n"
    "     could not be read, or the walk was incomplete (a directory not listed, --max-depth\n"
    "     or --max-entries hit)\n"
    "  3  error: bad catalog entry (the message names its file and line), unknown --only id,\n"
    "     unreadable TARGET, usage error\n"
    "Not-installed entries never count; with --only-relevant neither do fixes for other GPUs.\n"
    "Objects only PTX JIT runs do not count; with no GPU known (--no-gpu) no object is judged.\n";

/// Options of `sm120check scan [options] TARGET` and `sm120check scan --list`.
struct ScanCommandOptions {
  std::string target;                 ///< the directory scanned.
  std::vector<std::string> catalogs;  ///< --catalog DIR: user entries added to the built-in ones.
  std::vector<std::string> only;      ///< --only ID: judge only these entries.
  bool list = false;                  ///< --list: print the catalog and stop.
  std::optional<std::string> cc;      ///< --cc: assume this GPU instead of probing.
  bool no_gpu = false;                ///< --no-gpu: do not probe.
  bool only_relevant = false;         ///< --only-relevant: fixes for other GPUs do not count.
  bool stay_inside = false;           ///< --stay-inside: never read outside TARGET.
  bool no_kernels = false;            ///< --no-kernels: do not list shared objects' CUDA code.
  std::size_t max_depth = 16;         ///< --max-depth N.
  std::size_t max_entries = 2'000'000;  ///< --max-entries N.
  OutputOptions output;  ///< --format, --color, --output, -q/--quiet
};

/// Adds the `scan` subcommand to `app`. Returns the subcommand.
CLI::App* setup_scan(CLI::App& app, ScanCommandOptions& options, Setup setup = Setup::kFull);

/// Runs `scan`; returns its exit code (kScanExitCodesHelp). Throws Error for a bad catalog entry,
/// an unknown --only id or an unreadable TARGET.
int run_scan(const ScanCommandOptions& options);

/// Adds -p/--strip, --fuzz, --ignore-whitespace and --strict (verify and apply).
/// Adds --include PATTERN and --exclude PATTERN (repeatable; git apply's), appending to `rules`
/// in the order they stand on the command line.
void add_path_rule_options(CLI::App& cmd, std::vector<PathRule>& rules);

void add_match_options(CLI::App& cmd, std::optional<unsigned>& strip, unsigned& fuzz,
                       bool& ignore_whitespace, bool& strict);

/// Largest -p/--strip and --fuzz values accepted (decimal digits only: CLI11 alone would read
/// "0x10" as 16 and "" as 0).
inline constexpr unsigned kMaxStripOption = 64;
inline constexpr unsigned kMaxFuzzOption = 100;

/// A CLI11 check for -j/--threads: a decimal number from 0 (one thread per CPU) to `most`. Its
/// message names both spellings ("-j/--threads: 17 is out of range (0 to 16; 0: one per CPU)").
CLI::Validator threads_at_most(unsigned most);

/// Adds -p/--strip and --fuzz, decimal and bounded (kMaxStripOption, kMaxFuzzOption).
void add_strip_and_fuzz_options(CLI::App& cmd, std::optional<unsigned>& strip, unsigned& fuzz);

/// Adds the positional NAME... to `cmd`: it takes every positional word (before or after the
/// options, and all after "--"), each byte for byte into `words` ("[0-9]", "[a,b]", "{x}",
/// "a,b" and "-" stay as typed). Returns the option (for ->required(), ->type_name()).
CLI::Option* add_positional_words(CLI::App& cmd, const std::string& name,
                                  std::vector<std::string>& words, const std::string& description);

/// PATCH takes every positional (so that options may follow them); once parsing is complete,
/// the last one is moved to `target` (a usage error when there is none). TARGET is declared
/// separately, for the help text only.
void take_target_from_patches(CLI::App& cmd, std::vector<std::string>& patches,
                              std::string& target);

/// Adds --strict: exact-image semantics, as `git apply` and GNU patch have them.
void add_strict_option(CLI::App& cmd, bool& strict);

/// A CLI11 check accepting what parse_compute_capability() accepts (its message otherwise).
CLI::Validator compute_capability_check();

/// Whether NVIDIA has published compute capability `cc` for a GPU: 1.0 to 1.3, 2.0, 2.1, 3.0,
/// 3.2, 3.5, 3.7, 5.0, 5.2, 5.3, 6.0 to 6.2, 7.0, 7.2, 7.5, 8.0, 8.6, 8.7, 8.9, 9.0, 10.0,
/// 10.3, 11.0, 12.0, 12.1 (developer.nvidia.com/cuda-gpus and /cuda-legacy-gpus), 10.1 (Jetson
/// Thor until CUDA 13.0 renamed it 11.0) and 10.7 (sm_107, PTX ISA 9.4, CUDA 13.4).
bool is_published_compute_capability(ComputeCapability cc);

/// The capability a --cc value names (parse_compute_capability(); throws Error for a bad one,
/// which CLI11's compute_capability_check() has refused already). For one NVIDIA has not
/// published (is_published_compute_capability()), a one-line warning on stderr, unless
/// `quiet`: the value is used as given (a typo, or a GPU newer than this list).
ComputeCapability cc_option(const std::string& value, bool quiet);

/// Adds --cc CC (validated with parse_compute_capability(); a bad value is a usage error),
/// described by `description` (by default: assume that GPU instead of probing). Returns it.
CLI::Option* add_cc_option(CLI::App& cmd, std::optional<std::string>& cc,
                           const std::string& description = {});

/// Adds the `gpu` subcommand to `app`, parsing into `options`. Returns the subcommand.
CLI::App* setup_gpu(CLI::App& app, GpuCommandOptions& options, Setup setup = Setup::kFull);

/// Runs `gpu`; returns its exit code (kGpuExitCodesHelp). Never throws for CUDA errors.
int run_gpu(const GpuCommandOptions& options);

/// Adds the `log` subcommand to `app`. Returns the subcommand.
CLI::App* setup_log(CLI::App& app, LogCommandOptions& options, Setup setup = Setup::kFull);

/// Runs `log`; returns its exit code (see LogResult::exit_code). Throws Error.
int run_log(const LogCommandOptions& options);

/// `verify --rev`: verifies `patches` on each revision of TARGET's repository and writes the
/// report to `sink`; returns the worst exit code. Throws Error for an unknown revision and for
/// --format junit, github or sarif (one revision per report only: exit 3). --include /
/// --exclude take files out of `patches` at the first revision's strip levels.
int run_verify_revisions(const VerifyCommandOptions& options, std::vector<Patch> patches,
                         ReportSink& sink);

/// TARGET's git work tree, looked up once per run: its root (find_git_work_tree(), stat(2)
/// only), TARGET's place below it, and its repository opened for the readers without libgit2.
struct TargetWorkTree {
  std::optional<std::string> root;  ///< std::nullopt: TARGET is in no git work tree
  /// TARGET's place below root ("" for the root, else "dir/"); std::nullopt: cannot be told.
  std::optional<std::string> prefix;
  /// open_work_tree_index() of root; nullptr where the readers without libgit2 decline.
  std::shared_ptr<const WorkTreeIndex> index;
};

/// Looks TARGET's git work tree up (TargetWorkTree). Never throws.
TargetWorkTree open_target_work_tree(const std::string& target);

/// Repository facts for a work-tree run over the paths `patches` touch at `strips` and the
/// `relocated` paths read instead (relocated_paths()), or std::nullopt when TARGET is not in a
/// git work tree (`work_tree`: open_target_work_tree() of TARGET; no libgit2 for a plain tree)
/// or the repository cannot be opened.
std::optional<RepositoryFacts> work_tree_facts(const std::string& target,
                                               const TargetWorkTree& work_tree,
                                               const std::vector<Patch>& patches,
                                               const std::vector<unsigned>& strips,
                                               const std::vector<std::string>& relocated);

/// Each patch's strip level as `report` used it.
std::vector<unsigned> strips_of(const VerifyReport& report);

/// The target paths of `report`'s relocated files (read instead of the paths the patches name).
std::vector<std::string> relocated_paths(const VerifyReport& report);

/// The blob ids TARGET's git index (`work_tree`: open_target_work_tree() of TARGET) vouches
/// for, for the paths `patches` touch at `strips` (index_blob_ids()): handed to the tree so
/// that verify hashes only files changed since git last did. nullptr when TARGET is in no git
/// work tree or the index cannot vouch.
std::shared_ptr<const KnownBlobIds> work_tree_blob_ids(const TargetWorkTree& work_tree,
                                                       const std::vector<Patch>& patches,
                                                       const std::vector<unsigned>& strips);

/// Prints a one-line error on stderr for each patch or file with status error.
void report_errors(const VerifyReport& report);

/// For a regular expression PCRE2 gave up on for some line (MarkerHits::error_lines > 0):
/// "regular expression 'RE' could not be evaluated on N line(s) (first: PREFIX PATH:LINE: why)",
/// the path joined to `path_prefix` (TARGET and "/", as grep prints hits). One line, escaped.
std::string unevaluated_regex(const MarkerHits& marker, const std::string& path_prefix);

/// TARGET as grep prefixes the paths below it: a trailing "/" dropped, then one "/" added.
std::string target_prefix(const std::string& target);

}  // namespace sm120check::cli
