// The kernel listing (src/kernels) against objects built with nvcc 13.0 for known -gencode
// targets (tests/data/kernels, flags and expected entries in manifest.tsv), the compatibility
// rules, hostile input, and `sm120check kernels` end to end. No CUDA toolkit is needed: the
// fixtures are committed.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <optional>
#include <csignal>
#include <chrono>
#include <future>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../src/kernels/internal.hpp"
#include "sm120check/error.hpp"
#include "sm120check/kernels.hpp"
#include "sm120check/report.hpp"
#include "test_util.hpp"

namespace sm120check {
namespace {

namespace fs = std::filesystem;

fs::path fixtures() { return fs::path(SM120CHECK_SOURCE_DIR) / "tests/data/kernels"; }

std::vector<unsigned char> bytes_of(const fs::path& path) {
  const std::string text = test::read_file(path);
  return {text.begin(), text.end()};
}

/// A listing in manifest.tsv's words: "ptx:compute_120:compressed cubin:sm_120 | cubin:sm_90";
/// a fat binary without entries is "(empty)".
std::string manifest_words(const KernelListing& listing) {
  std::string out;
  for (const FatBinary& f : listing.fatbins) {
    if (&f != &listing.fatbins.front()) out += " | ";
    if (f.entries.empty()) out += "(empty)";
    bool first = true;
    for (const KernelEntry& e : f.entries) {
      if (!first) out += ' ';
      first = false;
      out += e.kind == KernelEntryKind::kLtoIr ? "lto" : std::string(to_string(e.kind));
      out += ":" + e.arch_name();
      if (e.compressed()) out += ":compressed";
    }
  }
  return out;
}

struct ManifestLine {
  std::string name, flags, expected;
};

std::vector<ManifestLine> manifest() {
  std::ifstream in(fixtures() / "manifest.tsv");
  std::vector<ManifestLine> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t tab1 = line.find('\t');
    const std::size_t tab2 = line.find('\t', tab1 + 1);
    if (tab1 == std::string::npos || tab2 == std::string::npos) {
      ADD_FAILURE() << "bad manifest line: " << line;
      continue;
    }
    out.push_back({line.substr(0, tab1), line.substr(tab1 + 1, tab2 - tab1 - 1),
                   line.substr(tab2 + 1)});
  }
  return out;
}

KernelListing list_fixture(const std::string& name) {
  return list_kernels((fixtures() / name).string());
}

KernelEntry entry_of(KernelEntryKind kind, int sm) {
  KernelEntry e;
  e.kind = kind;
  e.sm = sm;
  if (kind == KernelEntryKind::kCubin) {
    e.functions = 1u;
    e.function_names = {"k"};
  }
  return e;
}

// The listing of every fixture is exactly what its -gencode flags built: kinds, architectures
// with their a/f suffix, order, compression, one fat binary per translation unit.
TEST(KernelListing, EveryFixtureListsExactlyItsBuiltTargets) {
  const std::vector<ManifestLine> lines = manifest();
  ASSERT_EQ(lines.size(), 29u);
  for (const ManifestLine& m : lines) {
    const KernelListing listing = list_fixture(m.name);
    EXPECT_EQ(listing.error, "") << m.name;
    EXPECT_EQ(manifest_words(listing), m.expected) << m.name << " built with " << m.flags;
    // The same from memory (the fuzz target's path).
    const KernelListing again = list_kernels_in_memory(bytes_of(fixtures() / m.name), m.name);
    EXPECT_EQ(manifest_words(again), m.expected) << m.name;
  }
}

// nvcc -shared compiling and linking PTX-only code in one step puts an empty fat binary (a
// header of size 0, nvlink's device link with nothing to link) before the module's own in
// .nv_fatbin. It has no kernels: it is not a module "built for other architectures only".
TEST(KernelListing, AnEmptyContainerIsAModuleWithoutKernels) {
  const KernelListing listing = list_fixture("ptx120_cudart_static.fatbin");
  ASSERT_EQ(listing.fatbins.size(), 2u);
  EXPECT_TRUE(listing.fatbins[0].entries.empty());
  EXPECT_FALSE(listing.fatbins[0].has_kernels());
  EXPECT_TRUE(listing.fatbins[1].has_kernels());
  const test::RunResult r = test::run_sm120check(
      {"kernels", "--cc", "12.0", (fixtures() / "ptx120_cudart_static.fatbin").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // PTX only: JIT at first load
  EXPECT_NE(r.out.find("1 without kernels"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("12.0: ptx-jit: 1 of 1 module only as PTX"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("no image for 12.0"), std::string::npos) << r.out;
}

// Hostile review #12: a bare cubin (nvcc -cubin) or PTX file (nvcc -ptx) read "no CUDA code".
TEST(KernelListing, BareCubinAndPtxFilesAreReadAsWhatTheyAre) {
  const KernelListing cubin = list_fixture("saxpy_sm120.cubin");  // e_flags 0x6007802
  EXPECT_EQ(cubin.error, "");
  EXPECT_TRUE(cubin.elf);
  ASSERT_EQ(cubin.fatbins.size(), 1u);
  EXPECT_EQ(cubin.fatbins[0].section, "cubin");
  ASSERT_EQ(cubin.fatbins[0].entries.size(), 1u);
  const KernelEntry& c = cubin.fatbins[0].entries[0];
  EXPECT_EQ(c.kind, KernelEntryKind::kCubin);
  EXPECT_EQ(c.arch_name(), "sm_120");
  EXPECT_EQ(c.functions, std::optional<unsigned>(1u));  // saxpy
  EXPECT_EQ(c.size, 5600u);
  EXPECT_EQ(list_fixture("saxpy_sm120a.cubin").fatbins.at(0).entries.at(0).arch_name(), "sm_120a");

  const KernelListing ptx = list_fixture("saxpy_sm120.ptx");
  EXPECT_EQ(ptx.error, "");
  EXPECT_FALSE(ptx.elf);
  ASSERT_EQ(ptx.fatbins.size(), 1u);
  EXPECT_EQ(ptx.fatbins[0].section, "ptx");
  ASSERT_EQ(ptx.fatbins[0].entries.size(), 1u);
  EXPECT_EQ(ptx.fatbins[0].entries[0].arch_name(), "compute_120");
  EXPECT_EQ(ptx.fatbins[0].entries[0].ptx_version, (std::array<int, 2>{9, 0}));

  // Text that starts like PTX but is not (a C++ file's "//" comment) is no CUDA code.
  const std::string cpp = "// a comment\nint main() {}\n";
  const KernelListing not_ptx = list_kernels_in_memory(
      {reinterpret_cast<const unsigned char*>(cpp.data()), cpp.size()}, "x.cpp");
  EXPECT_TRUE(not_ptx.fatbins.empty());
  EXPECT_EQ(not_ptx.error, "");

  const test::RunResult r = test::run_sm120check(
      {"kernels", "--cc", "12.1", (fixtures() / "saxpy_sm120.cubin").string(),
       (fixtures() / "saxpy_sm120a.cubin").string(), (fixtures() / "saxpy_sm120.ptx").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;  // no image: sm_120a runs on 12.0 only
  EXPECT_NE(r.out.find("saxpy_sm120.cubin: a cubin file, not in a fat binary\n  cubin  sm_120\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("saxpy_sm120.ptx: PTX file, not in a fat binary\n  ptx    compute_120"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("summary: 3 files examined, 3 with CUDA code"), std::string::npos) << r.out;
}

// Hostile review hr22 F7 (ptx_leading_comment): a PTX text was recognised only when it started
// with `//` or `.version`; a `/* licence */` block, blank lines or indentation before it (ptxas
// accepts them) read "no CUDA code", exit 0, for compute_90a PTX a 12.0 GPU cannot run.
TEST(KernelListing, PtxAfterLeadingCommentsAndBlankLinesIsRead) {
  const std::string ptx = test::read_file(fixtures() / "saxpy_sm120.ptx");
  ASSERT_FALSE(ptx.empty());
  test::TempDir dir;
  for (const std::string& before :
       {std::string("/*\n * Copyright (c) 2025 Example Corp.\n */\n"), std::string("\n"),
        std::string("  \t\r\n// c\n/* a */ /* b\n */\n\n"), std::string(" ")}) {
    const std::string text = before + ptx;
    const KernelListing listing =
        list_kernels_in_memory({reinterpret_cast<const unsigned char*>(text.data()), text.size()},
                               "k.ptx");
    EXPECT_EQ(listing.error, "");
    ASSERT_EQ(listing.fatbins.size(), 1u) << before;
    EXPECT_EQ(listing.fatbins[0].entries.at(0).arch_name(), "compute_120") << before;
    // From a file too: its first bytes must not keep it from being read.
    test::write_file(dir.path() / "k.ptx", text);
    EXPECT_EQ(list_kernels(dir / "k.ptx").fatbins.size(), 1u) << before;
  }
  const test::RunResult r = test::run_sm120check({"kernels", "--cc", "12.0", dir / "k.ptx"});
  EXPECT_EQ(r.exit_code, 1) << r.out;  // compute_120 PTX: JIT on 12.0, not "no CUDA code" (0)
  EXPECT_NE(r.out.find("12.0: ptx-jit"), std::string::npos) << r.out;
  // Comments before something else, or never closed, are still no PTX; the search is bounded.
  for (const std::string& text :
       {std::string("/* licence */\nint main() {}\n"), std::string("/* never closed .version 9.0"),
        std::string(70000, ' ') + ".version 9.0\n.target sm_90\n"}) {
    const KernelListing listing = list_kernels_in_memory(
        {reinterpret_cast<const unsigned char*>(text.data()), text.size()}, "x.c");
    EXPECT_TRUE(listing.fatbins.empty());
    EXPECT_EQ(listing.error, "");
  }
}

/// A GNU thin archive (`ar rcST`) naming `members` (path, size): its long-name table and one
/// header per member, the members' bytes left out, as binutils writes them.
std::string thin_archive(const std::vector<std::pair<std::string, std::size_t>>& members) {
  std::string names;
  std::vector<std::size_t> offsets;
  for (const auto& [path, size] : members) {
    offsets.push_back(names.size());
    names += path + "/\n";
  }
  const auto header = [](const std::string& name, std::size_t size) {
    return fmt::format("{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n", name, 0, 0, 0, 644, size);
  };
  std::string out = "!<thin>\n" + header("//", names.size()) + names;
  if (out.size() % 2 != 0) out += '\n';
  for (std::size_t i = 0; i < members.size(); ++i)
    out += header(fmt::format("/{}", offsets[i]), members[i].second);
  return out;
}

// Hostile review hr22 F4 (thin_archive): a GNU thin archive (`ar rcT`, magic "!<thin>\n") read
// "no CUDA code", exit 0, though its members hold sm_90a and sm_121a code only. Its members
// are read from their files, relative to the archive's folder; one not read is an error.
TEST(KernelListing, ThinArchiveMembersAreReadFromTheirFiles) {
  test::TempDir dir;
  fs::create_directories(dir.path() / "objs");
  fs::create_directories(dir.path() / "lib");
  fs::copy_file(fixtures() / "sm90a.o", dir.path() / "objs/a.o");
  fs::copy_file(fixtures() / "sm100a_sm121a.o", dir.path() / "objs/b.o");
  const std::size_t a = fs::file_size(dir.path() / "objs/a.o");
  const std::size_t b = fs::file_size(dir.path() / "objs/b.o");
  test::write_file(dir.path() / "lib/libthin.a",
                   thin_archive({{"../objs/a.o", a}, {"../objs/b.o", b}, {"../objs/a.o", a}}));
  const KernelListing listing = list_kernels(dir / "lib/libthin.a");
  EXPECT_EQ(listing.error, "");
  EXPECT_TRUE(listing.archive);
  EXPECT_TRUE(listing.elf);
  ASSERT_EQ(listing.fatbins.size(), 2u);  // a.o named twice, read once
  EXPECT_EQ(listing.fatbins[0].member, "../objs/a.o");
  EXPECT_EQ(listing.fatbins[1].member, "../objs/b.o");
  EXPECT_EQ(listing.fatbins[0].entries.at(0).functions, 1u);
  EXPECT_EQ(file_fit(listing, {12, 0}).fit, KernelFit::kNone);
  EXPECT_EQ(file_fit(listing, {9, 0}).fit, KernelFit::kExact);
  // Through a descriptor named relative to another folder, as a directory walk opens it.
  {
    const int fd = ::open((dir / "lib/libthin.a").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(list_kernels_at(fd, "libthin.a").fatbins.size(), 2u);
    ::close(fd);
  }
  test::RunResult r = test::run_sm120check({"kernels", "--cc", "12.0", dir / "lib/libthin.a"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  r = test::run_sm120check({"kernels", "--cc", "12.0", dir / "lib"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("libthin.a"), std::string::npos) << r.out;
  // In memory the members cannot be read: an error, not "no CUDA code".
  const std::string bytes = test::read_file(dir.path() / "lib/libthin.a");
  EXPECT_NE(list_kernels_in_memory({reinterpret_cast<const unsigned char*>(bytes.data()),
                                    bytes.size()},
                                   "libthin.a")
                .error.find("3 members are files of their own, not read"),
            std::string::npos);
  // A member whose file is gone, or named by an absolute path: not read, an error (exit 3).
  test::write_file(dir.path() / "lib/libgone.a", thin_archive({{"../objs/a.o", a}, {"gone.o", 9}}));
  EXPECT_EQ(list_kernels(dir / "lib/libgone.a").error.rfind("thin archive member gone.o: cannot "
                                                            "open ",
                                                            0),
            0u);
  r = test::run_sm120check({"kernels", "--cc", "12.0", dir / "lib/libgone.a"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  test::write_file(dir.path() / "lib/libabs.a", thin_archive({{dir / "objs/a.o", a}}));
  EXPECT_NE(list_kernels(dir / "lib/libabs.a").error.find("an absolute path"), std::string::npos);
  // Damaged headers are errors too; an empty thin archive is no CUDA code.
  test::write_file(dir.path() / "lib/libcut.a", thin_archive({{"../objs/a.o", a}}).substr(0, 90));
  EXPECT_NE(list_kernels(dir / "lib/libcut.a").error, "");
  test::write_file(dir.path() / "lib/libempty.a", "!<thin>\n");
  const KernelListing empty = list_kernels(dir / "lib/libempty.a");
  EXPECT_EQ(empty.error, "");
  EXPECT_TRUE(empty.fatbins.empty());
}

TEST(KernelListing, HeaderFieldsOfAFixture) {
  const KernelListing listing = list_fixture("sm120_ptx120.o");
  ASSERT_EQ(listing.fatbins.size(), 1u);
  EXPECT_TRUE(listing.elf);
  const FatBinary& f = listing.fatbins[0];
  EXPECT_EQ(f.section, ".nv_fatbin");
  EXPECT_TRUE(f.loaded());
  EXPECT_TRUE(f.has_kernels());
  ASSERT_EQ(f.entries.size(), 2u);
  const KernelEntry& ptx = f.entries[0];
  EXPECT_EQ(ptx.kind, KernelEntryKind::kPtx);
  EXPECT_EQ(ptx.raw_kind, 1u);
  EXPECT_EQ(ptx.sm, 120);
  ASSERT_TRUE(ptx.ptx_version.has_value());
  EXPECT_EQ((*ptx.ptx_version)[0], 9);  // nvcc 13.0 writes PTX ISA 9.0
  EXPECT_EQ((*ptx.ptx_version)[1], 0);
  EXPECT_EQ(ptx.compression, KernelCompression::kZstd);
  EXPECT_EQ(ptx.size, 388u);
  EXPECT_EQ(ptx.uncompressed_size, 848u);
  EXPECT_EQ(ptx.offset, f.offset + 16);
  EXPECT_EQ(ptx.payload_offset, ptx.offset + 80);
  // Its kernels (.entry), read beside the module's cubin to compare with it.
  EXPECT_EQ(ptx.functions, 1u);
  EXPECT_EQ(ptx.function_names, std::vector<std::string>{"saxpy"});
  const KernelEntry& cubin = f.entries[1];
  EXPECT_EQ(cubin.kind, KernelEntryKind::kCubin);
  EXPECT_FALSE(cubin.ptx_version.has_value());
  EXPECT_EQ(cubin.size, 5600u);
  EXPECT_EQ(cubin.functions, 1u);  // saxpy
  // The payload is the cubin itself: an ELF image at payload_offset.
  const std::vector<unsigned char> file = bytes_of(fixtures() / "sm120_ptx120.o");
  EXPECT_EQ(std::memcmp(file.data() + cubin.payload_offset, "\x7f" "ELF", 4), 0);
}

// Independent of the entry header: each PTX text names its target with the a/f suffix (".target
// sm_120a"), and each cubin's ELF header its SM (e_flags bits 8..15 in the ELF ABI version 8
// that nvcc 13 writes), compressed ones once decompressed (zstd and LZ4).
TEST(KernelListing, ArchitecturesAgreeWithThePayloads) {
  std::size_t cubins = 0, ptx = 0, decompressed = 0;
  for (const ManifestLine& m : manifest()) {
    const std::vector<unsigned char> file = bytes_of(fixtures() / m.name);
    for (const FatBinary& f : list_fixture(m.name).fatbins)
      for (const KernelEntry& e : f.entries) {
        // LTO IR entries flagged zstd do not start with a zstd frame: their layout is unknown
        // (only their header is read).
        if (e.kind == KernelEntryKind::kLtoIr) continue;
        const std::optional<std::vector<unsigned char>> payload = decompress_entry(
            e, {file.data() + e.payload_offset, static_cast<std::size_t>(e.size)}, kMaxDecompressBytes);
        ASSERT_TRUE(payload.has_value()) << m.name << " " << e.arch_name();
        if (e.compressed()) {
          ++decompressed;
          EXPECT_EQ(payload->size(), e.uncompressed_size) << m.name;
        }
        const unsigned char* p = payload->data();
        if (e.kind == KernelEntryKind::kCubin) {
          ASSERT_GE(payload->size(), 64u);
          ASSERT_EQ(std::memcmp(p, "\x7f" "ELF", 4), 0) << m.name;
          ASSERT_EQ(p[8], 8) << m.name << ": ELF ABI version";
          std::uint32_t flags;
          std::memcpy(&flags, p + 48, 4);
          EXPECT_EQ(static_cast<int>((flags >> 8) & 0xff), e.sm) << m.name;
          ++cubins;
        } else if (e.kind == KernelEntryKind::kPtx) {
          const std::string text(reinterpret_cast<const char*>(p), payload->size());
          const std::string target = "sm_" + e.arch_name().substr(std::strlen("compute_"));
          EXPECT_NE(text.find(".target " + target + "\n"), std::string::npos)
              << m.name << " " << target;
          EXPECT_NE(text.find(".version 9.0\n"), std::string::npos) << m.name;
          ++ptx;
        }
      }
  }
  // hostonly.o 1, libarch.a 3, guard800_z.o 3, subset*.o 9, oldonly_jit.o 1
  EXPECT_EQ(cubins, 35u);
  // ptx120_cudart_static.fatbin 1, subset_ptx*.o 2, subset_jit*.o 3, oldonly_jit.o 1
  EXPECT_EQ(ptx, 18u);
  // subset_z.o 2, subset_ptx_z.o 1, subset_big_z.fatbin 2, subset_jit*.o 3, oldonly_jit.o 1
  EXPECT_EQ(decompressed, 26u);
}

// Functions are counted in compressed cubins too: the smallest of a module first.
TEST(KernelListing, CompressedCubinsAreDecompressedToCountFunctions) {
  for (const char* name : {"sm120_ptx120_zstd.o", "sm120_ptx120_lz4.o", "rdc_sm120.o"}) {
    const KernelListing listing = list_fixture(name);
    const KernelEntry& cubin = listing.fatbins.at(0).entries.back();
    EXPECT_TRUE(cubin.compressed()) << name;
    EXPECT_EQ(cubin.functions, 1u) << name;
  }
  // A payload that does not decompress, or claims too much, gives nothing.
  KernelEntry e;
  e.kind = KernelEntryKind::kCubin;
  e.compression = KernelCompression::kZstd;
  e.uncompressed_size = 100;
  const std::vector<unsigned char> junk(64, 0x5a);
  EXPECT_FALSE(decompress_entry(e, junk, 1u << 20).has_value());
  e.compression = KernelCompression::kLz4;
  EXPECT_FALSE(decompress_entry(e, junk, 1u << 20).has_value());
  e.uncompressed_size = 2u << 20;
  EXPECT_FALSE(decompress_entry(e, junk, 1u << 20).has_value());
}

// nvcc -shared with the CUDA runtime adds a fat binary for its default architecture (sm_75)
// with no function: it is listed, and left out of the judgement.
TEST(KernelListing, LinkStubWithoutKernelsIsNotJudged) {
  const KernelListing listing = list_fixture("libstub.so");
  ASSERT_EQ(listing.fatbins.size(), 2u);
  EXPECT_EQ(listing.fatbins[0].entries[0].functions, 0u);
  EXPECT_FALSE(listing.fatbins[0].has_kernels());
  EXPECT_TRUE(listing.fatbins[1].has_kernels());
  const FileFit fit = file_fit(listing, {12, 0});
  EXPECT_EQ(fit.fit, KernelFit::kExact);
  EXPECT_EQ(fit.skipped_without_kernels, 1u);
  ASSERT_EQ(fit.judged.size(), 1u);
  EXPECT_EQ(fit.judged[0].first, 1u);
}

// guard800.cu compiles saxpy only for __CUDA_ARCH__ >= 800: its sm_75 cubin is empty, the sm_80
// and sm_90 ones hold saxpy; with -Xfatbin -compress-all the empty one is the smallest. Only it
// was decompressed, so the module read "without kernels" and every GPU "nothing to run" (exit
// 0), where 12.0 has no kernel image (exit 2) and 9.0 its exact SASS.
TEST(KernelListing, EmptySmallestCompressedCubinDoesNotHideKernels) {
  const KernelListing listing = list_fixture("guard800_z.o");
  ASSERT_EQ(listing.fatbins.size(), 1u);
  const FatBinary& f = listing.fatbins[0];
  ASSERT_EQ(f.entries.size(), 3u);
  EXPECT_EQ(f.entries[0].sm, 75);
  EXPECT_LT(f.entries[0].uncompressed_size, f.entries[1].uncompressed_size);
  EXPECT_EQ(f.entries[0].functions, 0u);
  EXPECT_EQ(f.entries[1].functions, 1u);  // saxpy: the next in size, where round 1 stops
  EXPECT_EQ(f.entries[2].functions, 1u);  // round 2: read to compare the function sets
  EXPECT_TRUE(f.has_kernels());
  const FileFit on120 = file_fit(listing, {12, 0});
  EXPECT_EQ(on120.skipped_without_kernels, 0u);
  ASSERT_EQ(on120.judged.size(), 1u);
  EXPECT_EQ(on120.fit, KernelFit::kNone);
  EXPECT_EQ(file_fit(listing, {9, 0}).fit, KernelFit::kExact);
  EXPECT_EQ(file_fit(listing, {8, 9}).fit, KernelFit::kCompatible);
  // A 7.5 GPU loads the sm_75 cubin, which lacks saxpy: nothing of the module runs there.
  const FileFit on75 = file_fit(listing, {7, 5});
  ASSERT_EQ(on75.judged.size(), 1u);
  EXPECT_EQ(on75.fit, KernelFit::kNone);
  const std::string path = (fixtures() / "guard800_z.o").string();
  const test::RunResult r = test::run_sm120check({"kernels", "--cc", "12.0", path});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("12.0: none: no kernel image for 12.0"), std::string::npos) << r.out;
  const test::RunResult r90 = test::run_sm120check({"kernels", "--cc", "9.0", path});
  EXPECT_EQ(r90.exit_code, 0) << r90.out;
  EXPECT_NE(r90.out.find("9.0:  exact: sm_90 SASS in its module"), std::string::npos) << r90.out;
}

TEST(KernelListing, HostOnlyModuleWithPtxIsNotJudged) {
  // hostonly.cu has no kernel; built for code=[sm_80,compute_80] its module holds a cubin
  // without functions and PTX. It was judged "ptx-jit" for 12.0 (exit 1) though nothing runs.
  const KernelListing listing = list_fixture("hostonly.o");
  ASSERT_EQ(listing.fatbins.size(), 1u);
  ASSERT_EQ(listing.fatbins[0].entries.size(), 2u);
  EXPECT_EQ(listing.fatbins[0].entries[1].functions, 0u);
  EXPECT_FALSE(listing.fatbins[0].has_kernels());
  const FileFit fit = file_fit(listing, {12, 0});
  EXPECT_TRUE(fit.judged.empty());
  EXPECT_EQ(fit.skipped_without_kernels, 1u);
  const test::RunResult r =
      test::run_sm120check({"kernels", "--cc", "12.0", (fixtures() / "hostonly.o").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("ptx-jit"), std::string::npos) << r.out;
}

TEST(KernelListing, StaticArchiveMembersAreListed) {
  // libarch.a = ar of sm90.o, sm120a.o, hostonly.o: it read as "no CUDA code", exit 0.
  const KernelListing listing = list_fixture("libarch.a");
  EXPECT_EQ(listing.error, "");
  EXPECT_TRUE(listing.archive);
  ASSERT_EQ(listing.fatbins.size(), 3u);
  EXPECT_EQ(listing.fatbins[0].member, "sm90.o");
  EXPECT_EQ(listing.fatbins[1].member, "sm120a.o");
  EXPECT_EQ(listing.fatbins[2].member, "hostonly.o");
  // Offsets are the archive's: the entries read there are the members' own.
  const std::vector<unsigned char> file = bytes_of(fixtures() / "libarch.a");
  const KernelListing alone = list_fixture("sm120a.o");
  const KernelEntry& in_ar = listing.fatbins[1].entries.at(0);
  const KernelEntry& own = alone.fatbins.at(0).entries.at(0);
  EXPECT_EQ(in_ar.functions, 1u);
  EXPECT_EQ(in_ar.size, own.size);
  const std::vector<unsigned char> member_bytes = bytes_of(fixtures() / "sm120a.o");
  EXPECT_TRUE(std::equal(file.begin() + static_cast<long>(in_ar.payload_offset),
                         file.begin() + static_cast<long>(in_ar.payload_offset + in_ar.size),
                         member_bytes.begin() + static_cast<long>(own.payload_offset)));
  const test::RunResult r =
      test::run_sm120check({"kernels", "--cc", "12.0", "--entries", (fixtures() / "libarch.a").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("fat binary 2 (member sm120a.o, .nv_fatbin at "), std::string::npos) << r.out;
  EXPECT_EQ(test::run_sm120check({"kernels", "--cc", "8.0", (fixtures() / "libarch.a").string()})
                .exit_code,
            2);
}

// libelf ends an archive walk without an error at a member header it cannot read: the archive
// listed its members before that one only, exit 0 (a dropped sm_86 + compute_86 member would
// make a library ptx-jit on 12.0). Now an error naming the header's offset.
TEST(KernelListing, DamagedArchiveMemberHeaderIsAnError) {
  const std::vector<unsigned char> file = bytes_of(fixtures() / "libarch.a");
  std::vector<std::size_t> headers;
  for (std::size_t at = 8; at + 60 <= file.size();) {
    headers.push_back(at);
    const std::size_t size =
        std::stoul(std::string(reinterpret_cast<const char*>(file.data() + at + 48), 10));
    at += 60 + size + (size & 1);
  }
  ASSERT_GE(headers.size(), 3u);
  const std::size_t last = headers.back();
  EXPECT_EQ(list_kernels_in_memory(file, "libarch.a").error, "");
  const auto error_of = [&](std::vector<unsigned char> bytes) {
    return list_kernels_in_memory(bytes, "libarch.a").error;
  };
  const auto message = [&](std::size_t left) {
    return fmt::format("damaged archive member header at {:#x} ({} bytes left): the members "
                       "from there on cannot be read",
                       last, left);
  };
  std::vector<unsigned char> negative = file;
  std::memcpy(negative.data() + last + 48, "-1        ", 10);
  EXPECT_EQ(error_of(negative), message(file.size() - last));
  std::vector<unsigned char> magic = file;
  std::memcpy(magic.data() + last + 58, "XX", 2);
  EXPECT_EQ(error_of(magic), message(file.size() - last));
  const std::vector<unsigned char> cut(file.begin(), file.begin() + static_cast<long>(last + 30));
  EXPECT_EQ(error_of(cut), message(30));
  // A padding byte after an odd-sized last member is no member.
  std::vector<unsigned char> padded = file;
  if (padded.size() % 2 == 1) padded.push_back('\n');
  EXPECT_EQ(error_of(padded), "");
}

// A damaged archive was reported (exit 3) but also judged on the members read before the fault:
// "12.0: exact" beside the error, though a member after it (unread) may hold no image for 12.0.
// Now the fat binaries read are listed and the file is not judged, in text and JSON.
TEST(KernelListing, DamagedArchiveIsListedButNotJudged) {
  std::vector<unsigned char> file = bytes_of(fixtures() / "libarch.a");
  std::size_t last = 0;
  for (std::size_t at = 8; at + 60 <= file.size();) {
    last = at;
    const std::size_t size =
        std::stoul(std::string(reinterpret_cast<const char*>(file.data() + at + 48), 10));
    at += 60 + size + (size & 1);
  }
  std::memcpy(file.data() + last + 58, "XX", 2);  // hostonly.o's header: broken "`\n"
  const KernelListing listing = list_kernels_in_memory(file, "libarch.a");
  ASSERT_NE(listing.error, "");
  ASSERT_EQ(listing.fatbins.size(), 2u);  // sm90.o and sm120a.o were read
  const FileFit fit = file_fit(listing, {12, 0});
  EXPECT_TRUE(fit.not_judged);
  EXPECT_TRUE(fit.judged.empty());
  EXPECT_EQ(fit.modules, (std::array<std::size_t, 5>{}));
  EXPECT_FALSE(file_fit(list_fixture("libarch.a"), {12, 0}).not_judged);

  test::TempDir dir;
  test::write_file(dir / "libarch.a", std::string(file.begin(), file.end()));
  const test::RunResult r = test::run_sm120check({"kernels", "--cc", "12.0", dir / "libarch.a"});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_EQ(r.out, dir / "libarch.a" + ": 2 fat binaries, 2 entries\n"
                   "  error: " + listing.error + "\n"
                   "  cubin  sm_90 (x1), sm_120a (x1)\n"
                   "  12.0: not judged: the file could not be read whole (error above); the "
                   "modules after the fault are unknown\n"
                   "summary: 1 file examined, 1 with CUDA code, 1 unreadable or malformed\n");
  const test::RunResult j =
      test::run_sm120check({"kernels", "--cc", "12.0", "--format", "json", dir / "libarch.a"});
  EXPECT_EQ(j.exit_code, 3);
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  const nlohmann::json& f = doc["files"][0];
  EXPECT_EQ(f["fat_binaries"].size(), 2u);
  EXPECT_FALSE(f["error"].is_null());
  ASSERT_EQ(f["fits"].size(), 1u);
  EXPECT_TRUE(f["fits"][0]["fit"].is_null()) << f["fits"][0].dump();
  EXPECT_EQ(f["fits"][0]["not_judged"], true);
  EXPECT_TRUE(f["fits"][0]["module_fits"].empty());
  EXPECT_EQ(f["fits"][0]["modules"]["exact"], 0);
}

/// `image` (an ELF64 file) with its section header table dropped as sstrip leaves it: e_shoff,
/// e_shnum and e_shstrndx zero (ELF64 header offsets 0x28, 0x3c, 0x3e).
std::vector<unsigned char> without_section_headers(std::vector<unsigned char> image) {
  std::memset(image.data() + 0x28, 0, 8);
  std::memset(image.data() + 0x3c, 0, 4);
  return image;
}

// A shared object without its section header table still loads its fat binaries (the runtime
// finds them by address, not by section name): it read as "no CUDA code", exit 0. Now its
// loaded segments are searched for fat binary headers: it lists what the intact file lists, but
// is not judged (which of them are registered modules cannot be told), exit 3.
TEST(KernelListing, SharedObjectWithoutSectionHeadersIsSearchedThroughItsSegments) {
  const std::vector<unsigned char> intact = bytes_of(fixtures() / "libtwo.so");
  const std::vector<unsigned char> stripped = without_section_headers(intact);
  const KernelListing with = list_kernels_in_memory(intact, "libtwo.so");
  const KernelListing without = list_kernels_in_memory(stripped, "stripped.so");
  const std::string why =
      "no section header table: 2 fat binaries found by their headers in loaded segments "
      "(listed), but which of them the CUDA runtime registers (.nv_fatbin) and which are data "
      "(fat binaries kept in .rodata for JIT LTO, as CUDA 13's libcusparse.so.12 has 34) cannot "
      "be told without the sections: not judged";
  EXPECT_EQ(without.error, why);
  EXPECT_TRUE(without.elf);
  // Hostile recheck hr19: only e_shoff zeroed, or a section-name index past the table (the
  // loader reads neither, the library loads the same): read as without sections, not as a file
  // with sections but no fat-binary section (whose embedded search judged data as modules).
  std::vector<unsigned char> shoff0 = intact;
  std::memset(shoff0.data() + 0x28, 0, 8);
  EXPECT_EQ(list_kernels_in_memory(shoff0, "shoff0.so").error, why);
  std::vector<unsigned char> names_past = intact;
  const unsigned shnum = names_past[0x3c] | (names_past[0x3d] << 8);
  names_past[0x3e] = static_cast<unsigned char>((shnum + 5) & 0xff);
  names_past[0x3f] = static_cast<unsigned char>((shnum + 5) >> 8);
  EXPECT_EQ(list_kernels_in_memory(names_past, "names.so").error, why);
  EXPECT_EQ(manifest_words(without), manifest_words(with));
  ASSERT_EQ(without.fatbins.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(without.fatbins[k].section, "segment");
    EXPECT_EQ(without.fatbins[k].offset, with.fatbins[k].offset);
    EXPECT_EQ(without.fatbins[k].has_kernels(), with.fatbins[k].has_kernels());
  }
  EXPECT_TRUE(file_fit(without, {12, 0}).not_judged);

  test::TempDir dir;
  test::write_file(dir / "stripped.so", std::string(stripped.begin(), stripped.end()));
  const test::RunResult r = test::run_sm120check({"kernels", "--cc", "12.0", dir / "stripped.so"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find(": 2 fat binaries, 4 entries (1 compressed), found by their headers in "
                       "loaded segments (no section header table)\n  error: " + why + "\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  12.0: not judged: "), std::string::npos) << r.out;
  // A file without sections and without any fat binary header in its segments has no CUDA code.
  std::vector<unsigned char> none = stripped;
  for (const FatBinary& f : with.fatbins) std::memset(none.data() + f.offset, 0, 4);
  // (Its cubins are still there as bytes: found as embedded images, listed but not judged.)
  const KernelListing empty = list_kernels_in_memory(none, "none.so");
  EXPECT_FALSE(empty.fatbins.empty());
  for (const FatBinary& f : empty.fatbins) EXPECT_EQ(f.section, "embedded");
  EXPECT_NE(empty.error.find("no usable section header table and no fat binary header in its loaded "
                             "segments: "),
            std::string::npos)
      << empty.error;
  EXPECT_TRUE(file_fit(empty, {12, 0}).not_judged);
  // With those bytes gone too, nothing: no CUDA code.
  std::vector<unsigned char> bare = none;
  for (const FatBinary& f : empty.fatbins)
    std::memset(bare.data() + f.offset, 0, 4);
  const KernelListing nothing = list_kernels_in_memory(bare, "nothing.so");
  EXPECT_EQ(nothing.error, "");
  EXPECT_TRUE(nothing.fatbins.empty());

  // A fat binary header found there whose entries run past the segment: an error, exit 3.
  std::vector<unsigned char> cut = stripped;
  const std::size_t at = static_cast<std::size_t>(with.fatbins[1].offset);
  std::memset(cut.data() + at + 8, 0xff, 4);
  const KernelListing broken = list_kernels_in_memory(cut, "cut.so");
  EXPECT_NE(broken.error.find("no section header table: the fat binary found by its header at "),
            std::string::npos)
      << broken.error;
  // An object has no program headers: without sections nothing says where code lies.
  const KernelListing object = list_kernels_in_memory(
      without_section_headers(bytes_of(fixtures() / "sm120a.o")), "sm120a.o");
  EXPECT_EQ(object.error, "no section header table and no program headers: where a fat binary "
                          "would lie cannot be told");
  EXPECT_TRUE(object.fatbins.empty());
}

TEST(KernelListing, RelocatableDeviceCodeIsJudgedOnlyWithoutLoadedModules) {
  const KernelListing rdc = list_fixture("rdc_sm120.o");
  ASSERT_EQ(rdc.fatbins.size(), 1u);
  EXPECT_EQ(rdc.fatbins[0].section, "__nv_relfatbin");
  EXPECT_FALSE(rdc.fatbins[0].loaded());
  EXPECT_EQ(file_fit(rdc, {12, 0}).fit, KernelFit::kExact);
  // A loaded module next to a relocatable one: only the loaded one counts.
  KernelListing both = list_fixture("sm90.o");
  both.fatbins.push_back(rdc.fatbins[0]);
  const FileFit fit = file_fit(both, {12, 0});
  EXPECT_EQ(fit.fit, KernelFit::kNone);
  EXPECT_EQ(fit.skipped_relocatable, 1u);
}

// The judgement of every fixture for 12.0, 12.1, 9.0 and 8.0, written from NVIDIA's rules
// (kernels.hpp, entry_fit), not from the code.
TEST(KernelFitRules, EveryFixtureOnFourCapabilities) {
  // name -> fits on 12.0, 12.1, 9.0, 8.0 (E exact, C compatible, P ptx-jit, X partial,
  // N none).
  const std::map<std::string, std::string> expected{
      {"sm90.o", "NNEN"},
      {"sm90a.o", "NNEN"},
      {"sm120_ptx120.o", "ECNN"},
      {"sm120a.o", "ENNN"},     // sm_120a: 12.0 only
      {"sm120f.o", "ECNN"},     // sm_120f: the 12.x family
      {"sm100a_sm121a.o", "NENN"},
      {"ptx80.o", "PPPP"},
      {"ptx120a.o", "PNNN"},    // compute_120a: JIT on 12.0 only
      {"sm86_ptx86.o", "PPPN"}, // sm_86 SASS does not run on 8.0; compute_86 JITs on >= 8.6
      {"sm120_ptx120_uncompressed.o", "ECNN"},
      {"sm120_ptx120_zstd.o", "ECNN"},
      {"sm120_ptx120_lz4.o", "ECNN"},
      {"rdc_sm120.o", "ECNN"},
      {"lto120.o", "NNNN"},     // LTO IR: for the device linker only
      // Module 2 (sm_80 + compute_80) only JITs on 9.0 and 12.x; module 1 (sm_120 + sm_90)
      // has nothing for 8.0, while module 2 runs there.
      {"libtwo.so", "PPPE"},
      {"libstub.so", "ECNN"},
      {"saxpy.fatbin", "ECPN"},
      {"hostonly.o", "NNNN"},  // no kernel: nothing judged
      {"guard800_z.o", "NNEE"},  // kernels for sm_80 and sm_90 (sm_75 empty)
      {"libarch.a", "ENEN"},   // sm_90 | sm_120a | no kernel
      {"ptx120_cudart_static.fatbin", "PPNN"},  // empty | compute_120: JIT on 12.x only
      {"subset.o", "XXEN"},    // kernB in the sm_90 cubin only
      {"subset_z.o", "XXEN"},  // the same, cubins compressed
      {"subset_ptx.o", "XXPN"},    // kernB in the compute_90 PTX only (JIT on 9.0)
      {"subset_ptx_z.o", "XXPN"},  // the same, PTX compressed
      {"subset_big_z.fatbin", "XXEN"},  // subset.o's cubins, each past 1 MiB decompressed
      {"subset_jit.o", "XXEN"},   // kernB in the sm_90 cubin only, not in the compute_120 PTX
      {"subset_jit2.o", "XXPN"},  // kernB in the compute_90 PTX only
      {"oldonly_jit.o", "NNEN"},  // the compute_120 PTX has no kernel, the sm_90 cubin one
  };
  const ComputeCapability ccs[] = {{12, 0}, {12, 1}, {9, 0}, {8, 0}};
  const auto letter = [](KernelFit f) { return "ECPXN"[static_cast<int>(f)]; };
  for (const auto& [name, fits] : expected) {
    const KernelListing listing = list_fixture(name);
    std::string got;
    for (const ComputeCapability& cc : ccs) got += letter(file_fit(listing, cc).fit);
    EXPECT_EQ(got, fits) << name;
  }
  EXPECT_EQ(expected.size(), manifest().size());
}

KernelEntry entry(KernelEntryKind kind, int sm, ArchVariant variant = ArchVariant::kPlain) {
  KernelEntry e;
  e.kind = kind;
  e.sm = sm;
  e.variant = variant;
  if (kind == KernelEntryKind::kPtx) e.ptx_version = std::array<int, 2>{8, 8};
  return e;
}

TEST(KernelFitRules, CubinsPtxAndSuffixes) {
  using K = KernelEntryKind;
  using V = ArchVariant;
  // Plain cubins: same major, minor up to the GPU's.
  EXPECT_EQ(entry_fit(entry(K::kCubin, 120), {12, 1}), KernelFit::kCompatible);
  EXPECT_EQ(entry_fit(entry(K::kCubin, 121), {12, 0}), KernelFit::kNone);
  EXPECT_EQ(entry_fit(entry(K::kCubin, 100), {10, 3}), KernelFit::kCompatible);
  EXPECT_EQ(entry_fit(entry(K::kCubin, 90), {10, 0}), KernelFit::kNone);
  EXPECT_EQ(entry_fit(entry(K::kCubin, 80), {8, 6}), KernelFit::kCompatible);
  // a: that capability only; f: the family (major), minor up to the GPU's.
  EXPECT_EQ(entry_fit(entry(K::kCubin, 100, V::kArchSpecific), {10, 3}), KernelFit::kNone);
  EXPECT_EQ(entry_fit(entry(K::kCubin, 100, V::kFamily), {10, 3}), KernelFit::kCompatible);
  EXPECT_EQ(entry_fit(entry(K::kCubin, 103, V::kFamily), {10, 0}), KernelFit::kNone);
  EXPECT_EQ(entry_fit(entry(K::kCubin, 100, V::kFamily), {11, 0}), KernelFit::kNone);
  EXPECT_EQ(entry_fit(entry(K::kCubin, 121, V::kArchSpecific), {12, 1}), KernelFit::kExact);
  // PTX: any later capability; a only its own; f its family.
  EXPECT_EQ(entry_fit(entry(K::kPtx, 80), {12, 1}), KernelFit::kPtxJit);
  EXPECT_EQ(entry_fit(entry(K::kPtx, 90), {8, 9}), KernelFit::kNone);
  EXPECT_EQ(entry_fit(entry(K::kPtx, 90, V::kArchSpecific), {10, 0}), KernelFit::kNone);
  EXPECT_EQ(entry_fit(entry(K::kPtx, 120, V::kFamily), {12, 1}), KernelFit::kPtxJit);
  EXPECT_EQ(entry_fit(entry(K::kPtx, 120, V::kFamily), {13, 0}), KernelFit::kNone);
  // A driver too old for the PTX ISA version (8.8 came with CUDA 12.9).
  EXPECT_EQ(entry_fit(entry(K::kPtx, 80), {12, 0}, 12080), KernelFit::kNone);
  EXPECT_EQ(entry_fit(entry(K::kPtx, 80), {12, 0}, 12090), KernelFit::kPtxJit);
  EXPECT_EQ(cuda_version_for_ptx_isa(9, 0), 13000);
  EXPECT_EQ(cuda_version_for_ptx_isa(8, 7), 12080);
  EXPECT_EQ(cuda_version_for_ptx_isa(5, 0), 0);
  // LTO IR never runs as it is.
  EXPECT_EQ(entry_fit(entry(K::kLtoIr, 120), {12, 0}), KernelFit::kNone);
}

// A cubin whose functions are unknown (not read: too large) may hold kernels, next to an empty
// one; the empty cubin the driver would load makes the module unrunnable on that GPU only.
TEST(KernelListing, UnreadCubinMayHoldKernels) {
  FatBinary f;
  f.entries = {entry(KernelEntryKind::kCubin, 75), entry(KernelEntryKind::kCubin, 80),
               entry(KernelEntryKind::kCubin, 86)};
  f.entries[0].functions = 0u;
  EXPECT_TRUE(f.has_kernels());
  EXPECT_EQ(module_fit(f, {7, 5}).fit, KernelFit::kNone);
  EXPECT_EQ(module_fit(f, {8, 6}).fit, KernelFit::kExact);
  EXPECT_EQ(module_fit(f, {8, 9}).fit, KernelFit::kCompatible);
  f.entries[1].functions = 0u;
  f.entries[2].functions = 0u;
  EXPECT_FALSE(f.has_kernels());
  // Kernels in sm_86 only: 8.0 loads the empty sm_80 cubin, 8.9 the sm_86 one.
  f.entries[2].functions = 2u;
  EXPECT_EQ(module_fit(f, {8, 0}).fit, KernelFit::kNone);
  EXPECT_EQ(module_fit(f, {8, 9}).fit, KernelFit::kCompatible);
}

// Hostile input: a fat binary region cut, corrupted or padded never crashes, never reads out of
// bounds (ASan in the sanitizer pass), and says what is wrong.
std::vector<unsigned char> fatbin_region(const std::string& name) {
  const KernelListing listing = list_fixture(name);
  const std::vector<unsigned char> file = bytes_of(fixtures() / name);
  // The section of a one-fat-binary fixture: its header and its entries.
  const FatBinary& f = listing.fatbins.at(0);
  const KernelEntry& last = f.entries.back();
  std::uint64_t end = last.payload_offset + last.size;
  end = (end + 7) / 8 * 8;
  return {file.begin() + static_cast<long>(f.offset), file.begin() + static_cast<long>(end)};
}

std::string parse(const std::vector<unsigned char>& region, std::vector<FatBinary>& out) {
  return parse_fat_binaries(region, 0, ".nv_fatbin", out);
}

TEST(KernelHostile, EveryTruncationIsAnErrorOrAShorterListing) {
  const std::vector<unsigned char> region = fatbin_region("sm120_ptx120_zstd.o");
  std::vector<FatBinary> whole;
  ASSERT_EQ(parse(region, whole), "");
  ASSERT_EQ(whole.at(0).entries.size(), 2u);
  for (std::size_t n = 1; n < region.size(); ++n) {
    std::vector<unsigned char> cut(region.begin(), region.begin() + static_cast<long>(n));
    std::vector<FatBinary> out;
    EXPECT_NE(parse(cut, out), "") << n;
  }
}

TEST(KernelHostile, CorruptFieldsGiveClearErrors) {
  const std::vector<unsigned char> region = fatbin_region("sm120_ptx120_zstd.o");
  const auto with = [&](std::size_t at, std::vector<unsigned char> bytes) {
    std::vector<unsigned char> r = region;
    std::copy(bytes.begin(), bytes.end(), r.begin() + static_cast<long>(at));
    std::vector<FatBinary> out;
    return parse(r, out);
  };
  EXPECT_EQ(with(0, {0, 0, 0, 1}),
            "no fat binary at 0x3 (fat binary 1): its magic number is not 0xba55ed50");
  EXPECT_EQ(with(8, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}),
            "fat binary 1 at 0x0: its 18446744073709551615 bytes of entries run past the end of "
            ".nv_fatbin (2016 bytes left)");
  EXPECT_EQ(with(6, {8, 0}),
            "fat binary 1 at 0x0: header size 8 is not between 16 and the 2032 bytes left");
  // An entry header size of 0 would loop forever if trusted.
  EXPECT_EQ(with(16 + 4, {0, 0, 0, 0}),
            "fat binary 1 at 0x0: entry at 0x10: header size 0 is not between 64 and the 2016 "
            "bytes left");
  EXPECT_EQ(with(16 + 8, {0, 0, 0, 0, 0, 0, 0, 0x80}),
            "fat binary 1 at 0x0: entry at 0x10: payload of 9223372036854775808 bytes runs past "
            "the end of the fat binary (1936 bytes left)");
  EXPECT_EQ(with(16 + 16, {0xff, 0xff, 0, 0}),
            "fat binary 1 at 0x0: entry at 0x10: compressed size 65535 exceeds its payload of "
            "392 bytes");
  EXPECT_EQ(with(16 + 28, {0xff, 0xff, 0xff, 0xff}),
            "fat binary 1 at 0x0: entry at 0x10: architecture 4294967295 is not an SM");
  // Zero padding after a fat binary is skipped; anything else is reported.
  std::vector<unsigned char> padded = region;
  padded.resize(region.size() + 64, 0);
  std::vector<FatBinary> out;
  EXPECT_EQ(parse(padded, out), "");
  padded.push_back(7);
  out.clear();
  EXPECT_EQ(parse(padded, out),
            "no fat binary at 0x830 (fat binary 2): too few bytes left for a header");
  EXPECT_EQ(out.size(), 1u);  // what came before the fault is kept
  // Up to kMaxFatBinaryPadding zeros are padding; more are an error, not a scan of them all.
  std::vector<unsigned char> sparse = region;
  sparse.resize(region.size() + kMaxFatBinaryPadding, 0);
  out.clear();
  EXPECT_EQ(parse(sparse, out), "");
  sparse.resize(region.size() + kMaxFatBinaryPadding + 1, 0);
  out.clear();
  EXPECT_EQ(parse(sparse, out),
            fmt::format("more than 1048576 zero bytes at {:#x} (after fat binary 1, 1048577 "
                        "bytes left): not padding between fat binaries; a sparse or damaged "
                        "section?",
                        region.size()));
  EXPECT_EQ(out.size(), 1u);
}

TEST(KernelHostile, SparseSectionOfFourGibIsRefusedWithoutReadingIt) {
  // sm90.o with its .nv_fatbin section moved to the end of the file and made 4 GiB long, the
  // file extended with a hole: it took 14 s and 4.2 GB (every page of zeros mapped in) and said
  // "no CUDA code".
  std::vector<unsigned char> file = bytes_of(fixtures() / "sm90.o");
  const KernelListing good = list_kernels_in_memory(file, "sm90.o");
  std::uint64_t shoff = 0;
  std::uint16_t shnum = 0;
  std::memcpy(&shoff, file.data() + 40, 8);
  std::memcpy(&shnum, file.data() + 60, 2);
  const std::uint64_t end = (file.size() + 4095) / 4096 * 4096, four_gib = 4ull << 30;
  for (std::size_t i = 0; i < shnum; ++i) {
    std::uint64_t offset = 0;
    std::memcpy(&offset, file.data() + shoff + i * 64 + 24, 8);
    if (offset != good.fatbins.at(0).offset) continue;
    std::memcpy(file.data() + shoff + i * 64 + 24, &end, 8);
    std::memcpy(file.data() + shoff + i * 64 + 32, &four_gib, 8);
  }
  test::TempDir dir;
  const fs::path path = dir.path() / "sparse.o";
  test::write_file(path, std::string(file.begin(), file.end()));
  fs::resize_file(path, end + four_gib);
  rusage before{}, after{};
  ::getrusage(RUSAGE_SELF, &before);
  const KernelListing listing = list_kernels(path.string());
  ::getrusage(RUSAGE_SELF, &after);
  EXPECT_EQ(listing.error,
            fmt::format(".nv_fatbin: more than 1048576 zero bytes at {:#x} (after fat binary 0, "
                        "4294967296 bytes left): not padding between fat binaries; a sparse or "
                        "damaged section?",
                        end));
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 256 * 1024);  // KiB: far below 4 GiB
}

TEST(KernelHostile, BrokenFilesAreReportedNotThrown) {
  // A truncated ELF file: libelf refuses it or the section runs past the end.
  std::vector<unsigned char> file = bytes_of(fixtures() / "sm90.o");
  for (std::size_t n : {std::size_t{4}, std::size_t{63}, std::size_t{64}, file.size() / 2,
                        file.size() - 1}) {
    const std::vector<unsigned char> cut(file.begin(), file.begin() + static_cast<long>(n));
    KernelListing listing;
    EXPECT_NO_THROW(listing = list_kernels_in_memory(cut, "cut.o")) << n;
  }
  const KernelListing good = list_kernels_in_memory(file, "sm90.o");
  ASSERT_EQ(good.error, "");
  // The .nv_fatbin section header (ELF64: e_shoff at 40, e_shnum at 60, sh_offset at 24 and
  // sh_size at 32 of each 64-byte header) made to run past the end of the file, then every
  // section renamed .nv_fatbin (sh_name copied from it).
  std::uint64_t shoff = 0;
  std::uint16_t shnum = 0;
  std::memcpy(&shoff, file.data() + 40, 8);
  std::memcpy(&shnum, file.data() + 60, 2);
  std::size_t fatbin_header = 0;
  for (std::size_t i = 0; i < shnum; ++i) {
    std::uint64_t offset = 0;
    std::memcpy(&offset, file.data() + shoff + i * 64 + 24, 8);
    if (offset == good.fatbins[0].offset) fatbin_header = shoff + i * 64;
  }
  ASSERT_NE(fatbin_header, 0u);
  std::vector<unsigned char> past = file;
  const std::uint64_t huge = 1ull << 40;
  std::memcpy(past.data() + fatbin_header + 32, &huge, 8);
  EXPECT_EQ(list_kernels_in_memory(past, "past.o").error,
            fmt::format(".nv_fatbin: section of {} bytes at {:#x} runs past the end of the file "
                        "({} bytes)",
                        huge, good.fatbins[0].offset, file.size()));
  std::vector<unsigned char> named = file;
  for (std::size_t i = 1; i < shnum; ++i)
    std::memcpy(named.data() + shoff + i * 64, file.data() + fatbin_header, 4);
  EXPECT_EQ(list_kernels_in_memory(named, "named.o").error,
            "more than 16 sections named .nv_fatbin or __nv_relfatbin");
  const std::vector<unsigned char> garbage(4096, 0xa5);
  std::vector<unsigned char> bad = file;
  std::copy(garbage.begin(), garbage.begin() + 64,
            bad.begin() + static_cast<long>(good.fatbins[0].offset));
  const KernelListing listing = list_kernels_in_memory(bad, "bad.o");
  EXPECT_EQ(listing.error,
            ".nv_fatbin: no fat binary at " +
                fmt::format("{:#x}", good.fatbins[0].offset) +
                " (fat binary 1): its magic number is not 0xba55ed50");
  // Not ELF, not a fat binary: nothing, no error.
  const std::string text = "just text, no CUDA code here";
  const KernelListing plain =
      list_kernels_in_memory({reinterpret_cast<const unsigned char*>(text.data()), text.size()},
                             "t.txt");
  EXPECT_TRUE(plain.fatbins.empty());
  EXPECT_EQ(plain.error, "");
  EXPECT_FALSE(plain.elf);
  // An ELF magic followed by garbage.
  std::vector<unsigned char> fake(garbage.size(), 0xa5);
  std::memcpy(fake.data(), "\x7f" "ELF", 4);
  EXPECT_NE(list_kernels_in_memory(fake, "fake.so").error, "");
}

// A cubin entry whose payload is no cubin for its header's SM: the driver picks the entry by its
// header and then fails on the payload (CUDA_ERROR_INVALID_IMAGE). These read "exact", exit 0.
// Now the entry carries a problem, never fits, and the file is malformed (exit 3).
std::string write_bytes(const test::TempDir& dir, const std::string& name,
                        const std::vector<unsigned char>& bytes) {
  const std::string path = dir / name;
  test::write_file(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  return path;
}

TEST(KernelHostile, CubinPayloadMustBeAnElfForTheHeadersSm) {
  const std::vector<unsigned char> file = bytes_of(fixtures() / "sm120_ptx120_uncompressed.o");
  const KernelListing good = list_kernels_in_memory(file, "good.o");
  ASSERT_EQ(good.error, "");
  const KernelEntry& cubin = good.fatbins.at(0).entries.at(1);
  ASSERT_EQ(cubin.arch_name(), "sm_120");
  ASSERT_FALSE(cubin.compressed());
  ASSERT_EQ(cubin.problem, "");
  const auto at = static_cast<long>(cubin.payload_offset);
  const std::string where =
      fmt::format("fat binary 1 at {:#x}: sm_120 entry at {:#x}: ", good.fatbins[0].offset,
                  cubin.offset);
  test::TempDir dir;

  // 1. The payload zeroed (a damaged copy: headers and sizes intact).
  std::vector<unsigned char> zeroed = file;
  std::fill(zeroed.begin() + at, zeroed.begin() + at + static_cast<long>(cubin.size), 0);
  const KernelListing z = list_kernels_in_memory(zeroed, "zeroed.o");
  EXPECT_EQ(z.error, where + "cubin payload is not an ELF image (it starts with 00 00 00 00)");
  EXPECT_EQ(z.fatbins.at(0).entries.at(1).problem,
            "cubin payload is not an ELF image (it starts with 00 00 00 00)");
  EXPECT_EQ(entry_fit(z.fatbins[0].entries[1], {12, 0}), KernelFit::kNone);
  EXPECT_TRUE(file_fit(z, {12, 0}).not_judged);  // malformed: listed, not judged
  const test::RunResult rz =
      test::run_sm120check({"kernels", "--entries", "--cc", "12.0", write_bytes(dir, "zeroed.o", zeroed)});
  EXPECT_EQ(rz.exit_code, 3) << rz.out;
  EXPECT_NE(rz.out.find("malformed: cubin payload is not an ELF image"), std::string::npos)
      << rz.out;

  // 2. An sm_90 ELF under the sm_120 header: e_flags bits 8-15 (ELF ABI version 8) say 90.
  std::vector<unsigned char> sm90 = file;
  ASSERT_EQ(sm90[static_cast<std::size_t>(at) + 48 + 1], 120);
  sm90[static_cast<std::size_t>(at) + 48 + 1] = 90;
  const KernelListing n = list_kernels_in_memory(sm90, "sm90.o");
  EXPECT_EQ(n.error, where + "cubin payload is an ELF for sm_90 (e_flags 0x6005a02) under an "
                             "entry header for sm_120");
  EXPECT_TRUE(file_fit(n, {12, 0}).not_judged);

  // 3. Not EM_CUDA: e_machine 62 (x86-64).
  std::vector<unsigned char> x86 = file;
  x86[static_cast<std::size_t>(at) + 18] = 62;
  EXPECT_EQ(list_kernels_in_memory(x86, "x86.o").fatbins.at(0).entries.at(1).problem,
            "cubin payload is an ELF image of machine 62, not EM_CUDA (190)");

  // 4. A bare fat binary of one sm_120 cubin entry of 0 bytes.
  const std::vector<unsigned char> fatbin = bytes_of(fixtures() / "saxpy.fatbin");
  const KernelListing bare = list_kernels_in_memory(fatbin, "saxpy.fatbin");
  const KernelEntry& first = bare.fatbins.at(0).entries.at(0);
  ASSERT_EQ(first.arch_name(), "sm_120");
  const std::size_t header = first.payload_offset - first.offset;
  std::vector<unsigned char> empty = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0};
  for (int i = 0; i < 8; ++i) empty.push_back(static_cast<unsigned char>(i == 0 ? header : 0));
  empty.insert(empty.end(), fatbin.begin() + static_cast<long>(first.offset),
               fatbin.begin() + static_cast<long>(first.payload_offset));
  std::fill(empty.begin() + 16 + 8, empty.begin() + 16 + 16, 0);  // payload size 0
  const KernelListing e = list_kernels_in_memory(empty, "empty.fatbin");
  EXPECT_EQ(e.error, "fat binary 1 at 0x0: sm_120 entry at 0x10: cubin payload is empty (0 bytes)");
  EXPECT_EQ(file_fit(e, {12, 0}).fit, KernelFit::kNone);
  const test::RunResult re =
      test::run_sm120check({"kernels", "--cc", "12.0", write_bytes(dir, "empty.fatbin", empty)});
  EXPECT_EQ(re.exit_code, 3) << re.out;

  // 5. A compressed cubin whose data does not decompress.
  const std::vector<unsigned char> zfile = bytes_of(fixtures() / "sm120_ptx120_zstd.o");
  const KernelListing zgood = list_kernels_in_memory(zfile, "zstd.o");
  const KernelEntry& zcubin = zgood.fatbins.at(0).entries.at(1);
  ASSERT_TRUE(zcubin.compressed());
  std::vector<unsigned char> broken = zfile;
  std::fill(broken.begin() + static_cast<long>(zcubin.payload_offset),
            broken.begin() + static_cast<long>(zcubin.payload_offset + zcubin.size), 0x5a);
  EXPECT_EQ(list_kernels_in_memory(broken, "broken.o").fatbins.at(0).entries.at(1).problem,
            fmt::format("zstd-compressed cubin payload does not decompress to the {} bytes its "
                        "header gives",
                        zcubin.uncompressed_size));
}

// subset.cu defines kernB for __CUDA_ARCH__ < 1000 only: the sm_90 cubin holds kernA and kernB,
// the sm_120 cubin kernA alone. A 12.0 (or 12.1) GPU loads the sm_120 cubin and cannot launch
// kernB; the fit was "exact", exit 0, because only function presence (0 or not) was compared.
TEST(KernelFitRules, LoadedCubinLackingAFunctionOfAnotherCubinIsPartial) {
  for (const char* name : {"subset.o", "subset_z.o"}) {
    const KernelListing listing = list_fixture(name);
    ASSERT_EQ(listing.error, "") << name;
    ASSERT_EQ(manifest_words(listing).substr(0, 6), "cubin:") << name;
    const FileFit on120 = file_fit(listing, {12, 0});
    EXPECT_EQ(on120.fit, KernelFit::kPartial) << name;
    ASSERT_EQ(on120.judged.size(), 1u);
    const ModuleFit& m = on120.judged[0].second;
    EXPECT_EQ(m.missing_functions, std::vector<std::string>{"_Z5kernBPf"}) << name;
    EXPECT_TRUE(m.functions_compared) << name;
    EXPECT_EQ(listing.fatbins[0].entries.at(static_cast<std::size_t>(m.entry)).sm, 120);
    EXPECT_EQ(file_fit(listing, {12, 1}).fit, KernelFit::kPartial) << name;
    EXPECT_EQ(file_fit(listing, {9, 0}).fit, KernelFit::kExact) << name;  // sm_90 has both
    const test::RunResult r =
        test::run_sm120check({"kernels", "--cc", "12.0", (fixtures() / name).string()});
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("12.0: partial: the cubin or PTX a 12.0 GPU loads lacks 1 function that "
                         "another cubin or PTX of the same module has (_Z5kernBPf)"),
              std::string::npos)
        << r.out;
    const test::RunResult j = test::run_sm120check(
        {"kernels", "--cc", "12.0", "--format", "json", (fixtures() / name).string()});
    const nlohmann::json doc = nlohmann::json::parse(j.out);
    EXPECT_EQ(doc["files"][0]["fits"][0]["fit"], "partial");
    EXPECT_EQ(doc["files"][0]["fits"][0]["modules"]["partial"], 1);
    EXPECT_EQ(doc["files"][0]["fits"][0]["module_fits"][0]["missing_functions"][0], "_Z5kernBPf");
  }
  // A cubin whose functions are unknown (unread) cannot be compared: the entries decide, and
  // functions_compared says the check was not made.
  FatBinary f;
  f.section = ".nv_fatbin";
  KernelEntry a;
  a.kind = KernelEntryKind::kCubin;
  a.sm = 120;
  a.functions = 1;
  a.function_names = {"kernA"};
  KernelEntry b = a;
  b.sm = 90;
  b.functions.reset();
  b.function_names.clear();
  f.entries = {a, b};
  ModuleFit m = module_fit(f, {12, 0});
  EXPECT_EQ(m.fit, KernelFit::kExact);
  EXPECT_FALSE(m.functions_compared);
  f.entries[1].functions = 2;
  f.entries[1].function_names = {"kernA", "kernB"};
  m = module_fit(f, {12, 0});
  EXPECT_EQ(m.fit, KernelFit::kPartial);
  EXPECT_TRUE(m.functions_compared);
  f.entries[1].function_names = {"kernA"};
  f.entries[1].functions = 1;
  EXPECT_EQ(module_fit(f, {12, 0}).fit, KernelFit::kExact);
}

// embedded.o carries an sm_90 cubin and an sm_90 fat binary as const arrays (xxd -i) and no
// fat-binary section: a library that loads them with cuModuleLoadData. It read "no CUDA code",
// exit 0, where a 12.0 GPU has no kernel image for either.
TEST(KernelListing, CubinsAndFatBinariesEmbeddedAsDataAreListed) {
  const KernelListing listing = list_fixture("embedded.o");
  EXPECT_EQ(listing.error, "");
  EXPECT_TRUE(listing.elf);
  ASSERT_EQ(listing.fatbins.size(), 2u);
  for (const FatBinary& f : listing.fatbins) {
    EXPECT_EQ(f.section, "embedded");
    EXPECT_TRUE(f.loaded());
    ASSERT_EQ(f.entries.size(), 1u);
    EXPECT_EQ(f.entries[0].arch_name(), "sm_90");
    EXPECT_EQ(f.entries[0].functions, 1u);  // saxpy
    EXPECT_EQ(f.entries[0].problem, "");
  }
  EXPECT_LT(listing.fatbins[0].offset, listing.fatbins[1].offset);
  // The cubin of the fat binary is not listed again as a cubin of its own.
  const std::vector<unsigned char> file = bytes_of(fixtures() / "embedded.o");
  std::vector<FatBinary> found;
  std::size_t entries_left = kMaxFatBinaryEntries;
  EXPECT_EQ(find_embedded_cuda(std::span(file).subspan(1), 1, entries_left, found), 2u);
  EXPECT_EQ(entries_left, kMaxFatBinaryEntries - 2);
  EXPECT_EQ(file_fit(listing, {12, 0}).fit, KernelFit::kNone);
  EXPECT_EQ(file_fit(listing, {9, 0}).fit, KernelFit::kExact);
  const std::string path = (fixtures() / "embedded.o").string();
  const test::RunResult r = test::run_sm120check({"kernels", "--cc", "12.0", path});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find(", 2 embedded in its data"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("no CUDA code"), std::string::npos) << r.out;
  // An ELF file without any: the wording says what was looked at, not "no CUDA code" alone.
  std::vector<unsigned char> blank = file;
  for (std::size_t i = 1; i + 4 <= blank.size(); ++i)  // every magic after the file's own
    if (std::memcmp(&blank[i], "\x7f" "ELF", 4) == 0 || std::memcmp(&blank[i], "\x50\xed\x55\xba", 4) == 0)
      blank[i] = 0;
  test::TempDir dir;
  const std::string blank_path = dir / "blank.o";
  test::write_file(blank_path, std::string_view(reinterpret_cast<const char*>(blank.data()), blank.size()));
  const test::RunResult b = test::run_sm120check({"kernels", "--cc", "12.0", blank_path});
  EXPECT_EQ(b.exit_code, 0) << b.out;
  EXPECT_NE(b.out.find(blank_path + ": no CUDA code found (no .nv_fatbin or __nv_relfatbin "
                                    "section, no fat binary or cubin image in its data"),
            std::string::npos)
      << b.out;
}

// Hostile recheck hr19 embedded_beside_nvfatbin: a library with a registered sm_120 module
// (.nv_fatbin) and an sm_90-only fat binary in .rodata that it loads itself. The embedded search
// ran only without a fat-binary section, so the embedded image was not listed and the file read
// exact with one module. Now the data sections are searched beside .nv_fatbin: the embedded
// module is listed and judged (no image for 12.0); the file follows the rule for several modules
// (the worst of those with an image decides, those without are counted: exit 0 with the count).
TEST(KernelListing, EmbeddedImageBesideARegisteredModuleIsListedAndJudged) {
  const KernelListing listing = list_fixture("embedded_beside.so");
  ASSERT_EQ(listing.error, "");
  ASSERT_EQ(listing.fatbins.size(), 2u) << manifest_words(listing);
  EXPECT_EQ(listing.fatbins[0].section, ".nv_fatbin");
  EXPECT_EQ(manifest_words(listing), "cubin:sm_120 | cubin:sm_90");
  EXPECT_EQ(listing.fatbins[1].section, "embedded");
  EXPECT_TRUE(listing.fatbins[1].loaded());
  const FileFit on120 = file_fit(listing, {12, 0});
  EXPECT_EQ(on120.fit, KernelFit::kExact);
  EXPECT_EQ(on120.judged.size(), 2u);
  EXPECT_EQ(on120.modules[static_cast<std::size_t>(KernelFit::kNone)], 1u);
  EXPECT_EQ(file_fit(listing, {9, 0}).fit, KernelFit::kExact);  // the embedded sm_90 one
  const std::string path = (fixtures() / "embedded_beside.so").string();
  const test::RunResult r = test::run_sm120check({"kernels", "--cc", "12.0", path});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(", 1 embedded in its data"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("12.0: exact: sm_120 SASS in 1 module; 1 of 2 modules have no image for "
                       "12.0"),
            std::string::npos)
      << r.out;
  // What .nv_fatbin holds is never found again as embedded data, even when a data section
  // claims the same bytes (a section header pointing .rodata over .nv_fatbin and past it).
  for (const char* name : {"libtwo.so", "sm120_ptx120.o", "libstub.so", "libarch.a"}) {
    const KernelListing l = list_fixture(name);
    for (const FatBinary& f : l.fatbins) EXPECT_NE(f.section, "embedded") << name;
  }
  std::vector<unsigned char> file = bytes_of(fixtures() / "embedded_beside.so");
  const auto u64 = [&](std::size_t at) {
    std::uint64_t v = 0;
    std::memcpy(&v, file.data() + at, 8);
    return v;
  };
  const auto u16 = [&](std::size_t at) { return static_cast<std::size_t>(file[at] | (file[at + 1] << 8)); };
  const std::size_t shoff = static_cast<std::size_t>(u64(0x28)), shnum = u16(0x3c);
  const std::size_t names = static_cast<std::size_t>(u64(shoff + u16(0x3e) * 64 + 0x18));
  std::size_t fatbin = 0, rodata = 0;
  for (std::size_t k = 1; k < shnum; ++k) {
    std::uint32_t name = 0;
    std::memcpy(&name, file.data() + shoff + k * 64, 4);
    const char* text = reinterpret_cast<const char*>(file.data() + names + name);
    if (std::strcmp(text, ".nv_fatbin") == 0) fatbin = shoff + k * 64;
    if (std::strcmp(text, ".rodata") == 0) rodata = shoff + k * 64;
  }
  ASSERT_NE(fatbin, 0u);
  ASSERT_NE(rodata, 0u);
  const std::uint64_t from = std::min(u64(rodata + 0x18), u64(fatbin + 0x18));
  const std::uint64_t to = u64(fatbin + 0x18) + u64(fatbin + 0x20) + 64;
  std::memcpy(file.data() + rodata + 0x18, &from, 8);
  const std::uint64_t size = to - from;
  std::memcpy(file.data() + rodata + 0x20, &size, 8);
  const KernelListing overlapping = list_kernels_in_memory(file, "overlap.so");
  EXPECT_EQ(manifest_words(overlapping), "cubin:sm_120 | cubin:sm_90");
}

// An embedded fat binary with LTO IR is input for nvJitLink (CUDA 13's libcusparse keeps 34 in
// .rodata): listed, never judged, also when the file has nothing else.
TEST(KernelFitRules, EmbeddedFatBinaryWithLtoIrIsNotJudged) {
  KernelListing listing;
  FatBinary registered;
  registered.section = ".nv_fatbin";
  registered.entries = {entry_of(KernelEntryKind::kCubin, 120)};
  FatBinary jit;
  jit.section = "embedded";
  jit.entries = {entry_of(KernelEntryKind::kLtoIr, 100), entry_of(KernelEntryKind::kPtx, 100)};
  EXPECT_FALSE(jit.loaded());
  listing.fatbins = {registered, jit};
  FileFit fit = file_fit(listing, {12, 0});
  EXPECT_EQ(fit.fit, KernelFit::kExact);
  EXPECT_EQ(fit.skipped_relocatable, 1u);
  listing.fatbins = {jit};
  fit = file_fit(listing, {12, 0});
  EXPECT_TRUE(fit.judged.empty());
  EXPECT_EQ(fit.skipped_relocatable, 1u);
}

// Hostile recheck hr19 ptx_not_compared: the sm_120 cubin lacks kernB, which the compute_90
// PTX defines; a 12.0 GPU loads the cubin, and kernB fails. PTX .entry names were not read, so
// the module was exact, exit 0.
TEST(KernelFitRules, LoadedCubinLackingAKernelOfThePtxIsPartial) {
  for (const char* name : {"subset_ptx.o", "subset_ptx_z.o"}) {
    const KernelListing listing = list_fixture(name);
    ASSERT_EQ(listing.error, "") << name;
    ASSERT_EQ(listing.fatbins.size(), 1u);
    const KernelEntry& ptx = listing.fatbins[0].entries.at(1);
    ASSERT_EQ(ptx.kind, KernelEntryKind::kPtx);
    EXPECT_EQ(ptx.function_names, (std::vector<std::string>{"_Z5kernAPf", "_Z5kernBPf"})) << name;
    const FileFit on120 = file_fit(listing, {12, 0});
    EXPECT_EQ(on120.fit, KernelFit::kPartial) << name;
    ASSERT_EQ(on120.judged.size(), 1u);
    EXPECT_EQ(on120.judged[0].second.missing_functions, std::vector<std::string>{"_Z5kernBPf"});
    EXPECT_TRUE(on120.judged[0].second.functions_compared);
    const test::RunResult r =
        test::run_sm120check({"kernels", "--cc", "12.0", (fixtures() / name).string()});
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("lacks 1 function that another cubin or PTX of the same module has "
                         "(_Z5kernBPf)"),
              std::string::npos)
        << r.out;
  }
}

// Hostile review hr22 F3 (ptxjit_partial): a module whose image for the GPU is PTX was never
// checked for missing kernels. subset_jit.o (code=sm_90 + code=compute_120): kernB is in the
// sm_90 cubin only; a 12.0 GPU can only JIT the compute_120 PTX, which has no `.entry` for it,
// and launching kernB fails. It read `ptx-jit`, exit 1; the same with code=sm_120 is partial.
TEST(KernelFitRules, JitCompiledPtxLackingAKernelIsPartial) {
  for (const char* name : {"subset_jit.o", "subset_jit2.o"}) {
    const KernelListing listing = list_fixture(name);
    ASSERT_EQ(listing.error, "") << name;
    ASSERT_EQ(listing.fatbins.size(), 1u);
    const KernelEntry& ptx120 = listing.fatbins[0].entries.at(1);
    ASSERT_EQ(ptx120.arch_name(), "compute_120") << name;
    EXPECT_EQ(ptx120.function_names, std::vector<std::string>{"_Z5kernAPf"}) << name;
    for (const ComputeCapability cc : {ComputeCapability{12, 0}, ComputeCapability{12, 1}}) {
      const FileFit fit = file_fit(listing, cc);
      EXPECT_EQ(fit.fit, KernelFit::kPartial) << name;
      ASSERT_EQ(fit.judged.size(), 1u);
      EXPECT_EQ(fit.judged[0].second.entry, 1) << name;  // the PTX JIT-compiled
      EXPECT_EQ(fit.judged[0].second.missing_functions, std::vector<std::string>{"_Z5kernBPf"});
      EXPECT_TRUE(fit.judged[0].second.functions_compared) << name;
    }
    const test::RunResult r = test::run_sm120check(
        {"kernels", "--cc", "12.0", "--format", "json", (fixtures() / name).string()});
    EXPECT_EQ(r.exit_code, 2) << r.out;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    const nlohmann::json& module = doc["files"][0]["fits"][0]["module_fits"][0];
    EXPECT_EQ(module["fit"], "partial") << r.out;
    EXPECT_EQ(module["arch"], "compute_120") << r.out;
    EXPECT_EQ(module["missing_functions"], nlohmann::json::array({"_Z5kernBPf"})) << r.out;
  }
  // On 9.0 subset_jit2.o's compute_90 PTX is JIT-compiled: it has both kernels.
  EXPECT_EQ(file_fit(list_fixture("subset_jit2.o"), {9, 0}).fit, KernelFit::kPtxJit);
  const test::RunResult text = test::run_sm120check(
      {"kernels", "--cc", "12.0", (fixtures() / "subset_jit.o").string()});
  EXPECT_NE(text.out.find("12.0: partial: the cubin or PTX a 12.0 GPU loads lacks 1 function"),
            std::string::npos)
      << text.out;
}

// hr22 F3 variant B: oldonly_jit.o's compute_120 PTX defines no kernel while its sm_90 cubin
// has one: a 12.x GPU has nothing to launch (`none`, exit 2, as the same with an empty sm_120
// cubin reads), not `ptx-jit`.
TEST(KernelFitRules, JitCompiledPtxWithoutAnyKernelIsNone) {
  const KernelListing listing = list_fixture("oldonly_jit.o");
  ASSERT_EQ(listing.error, "");
  ASSERT_EQ(listing.fatbins.size(), 1u);
  EXPECT_EQ(listing.fatbins[0].entries.at(1).functions, 0u);
  const FileFit fit = file_fit(listing, {12, 0});
  EXPECT_EQ(fit.fit, KernelFit::kNone);
  ASSERT_EQ(fit.judged.size(), 1u);
  EXPECT_EQ(fit.judged[0].second.entry, -1);
  EXPECT_EQ(file_fit(listing, {9, 0}).fit, KernelFit::kExact);
  const test::RunResult r = test::run_sm120check(
      {"kernels", "--cc", "12.0", (fixtures() / "oldonly_jit.o").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("12.0: none"), std::string::npos) << r.out;
  // A PTX without kernels in a module whose other images have none either (host code only)
  // stays what it was: nothing is missing from it.
  FatBinary hostonly;
  hostonly.section = ".nv_fatbin";
  hostonly.entries = listing.fatbins[0].entries;
  hostonly.entries[0].functions = 0u;
  hostonly.entries[0].function_names.clear();
  EXPECT_EQ(module_fit(hostonly, {12, 0}).fit, KernelFit::kPtxJit);
}

TEST(KernelListing, PtxEntryNamesAreReadRobustly) {
  EXPECT_EQ(ptx_entry_names(".version 9.0\n.target sm_90\n.visible .entry _Z2k1Pf(\n"
                            "  .param .u64 p)\n{\n ret;\n}\n.entry plain\n{\n}\n"
                            ".weak .entry\tweak_one ( .param .u32 a )\n{}\n"),
            (std::vector<std::string>{"_Z2k1Pf", "plain", "weak_one"}));
  // Declarations, comments, strings and look-alikes define none.
  EXPECT_EQ(ptx_entry_names(".extern .entry declared(.param .u32 a);\n"
                            "// .visible .entry in_line_comment(\n"
                            "/* .entry in_block\n .entry more */\n"
                            ".file 1 \"a .entry in_string.cu\"\n"
                            ".globl x.entry; .entry 9bad\n.entry .entry\n"
                            ".visible .entry $dollar%ok(\n"),
            std::vector<std::string>{"$dollar%ok"});
  EXPECT_TRUE(ptx_entry_names("").empty());
  EXPECT_TRUE(ptx_entry_names(".entry").empty());
  EXPECT_TRUE(ptx_entry_names("/* never closed .entry k(").empty());
  EXPECT_EQ(ptx_entry_names(".entry a\n.entry a\n"), std::vector<std::string>{"a"});
  // Linear: a large text of comment openers and `.entry` tokens is read at once.
  std::string big;
  for (int i = 0; i < 200000; ++i) big += "/ .entry /\"\n";
  EXPECT_TRUE(ptx_entry_names(big).empty());
}

// Hostile recheck hr19 compressed_budget_exact: subset.o's module with 400 filler kernels, both
// cubins compressed and decompressing past 1 MiB (the per-cubin budget then): functions were
// not compared, and the text said a plain exact, exit 0. The budget now reads them (256 MiB per
// entry, 64 MiB + 32 x the stored compressed bytes per file): partial, exit 2.
TEST(KernelFitRules, CubinsPastOneMibDecompressedAreCompared) {
  const KernelListing listing = list_fixture("subset_big_z.fatbin");
  ASSERT_EQ(listing.error, "");
  for (const KernelEntry& e : listing.fatbins.at(0).entries) {
    EXPECT_GT(e.uncompressed_size, 900000u);
    EXPECT_TRUE(e.functions.has_value()) << e.arch_name();
  }
  EXPECT_EQ(listing.fatbins[0].entries[1].uncompressed_size > (1u << 20), true);
  const FileFit on120 = file_fit(listing, {12, 0});
  EXPECT_EQ(on120.fit, KernelFit::kPartial);
  EXPECT_EQ(on120.not_compared, 0u);
  EXPECT_EQ(on120.judged.at(0).second.missing_functions, std::vector<std::string>{"_Z5kernBPf"});
}

// Where the functions still cannot be compared (an image left unread), an exact or compatible
// module is not a plain exact: the text says so and the exit code is 2. A module of one image
// has nothing to compare.
TEST(KernelFitRules, FunctionsNotComparedIsACaveatAndExitTwo) {
  KernelListing listing = list_fixture("subset_z.o");
  ASSERT_EQ(listing.fatbins.at(0).entries.size(), 2u);
  KernelEntry& sm90 = listing.fatbins[0].entries[1];
  ASSERT_EQ(sm90.sm, 90);
  sm90.functions.reset();  // as if left unread
  sm90.function_names.clear();
  KernelsReport report;
  report.capabilities = {{12, 0}};
  report.files = {listing};
  report.fits = {{file_fit(listing, {12, 0})}};
  const FileFit& fit = report.fits[0][0];
  EXPECT_EQ(fit.fit, KernelFit::kExact);
  EXPECT_EQ(fit.not_compared, 1u);
  EXPECT_FALSE(fit.judged.at(0).second.functions_compared);
  EXPECT_EQ(kernels_exit_code(report), 2);
  std::ostringstream text;
  render_kernels_text(text, report, false, false);
  EXPECT_NE(text.str().find("12.0: exact (functions not compared): sm_120 SASS in its module; the "
                            "functions of 1 of 1 modules could not be compared"),
            std::string::npos)
      << text.str();
  EXPECT_EQ(kernels_document(report, 2)["files"][0]["fits"][0]["modules_not_compared"], 1);
  // One image only: nothing to compare, whether or not its functions are known.
  KernelListing one = list_fixture("sm120a.o");
  one.fatbins.at(0).entries.at(0).functions.reset();
  const FileFit single = file_fit(one, {12, 0});
  EXPECT_EQ(single.not_compared, 0u);
  EXPECT_TRUE(single.judged.at(0).second.functions_compared);
}

// `sm120check kernels` end to end: text, JSON, exit codes.
TEST(KernelsCommand, TextForTwoModulesAndExitCodes) {
  const std::string lib = (fixtures() / "libtwo.so").string();
  const test::RunResult r = test::run_sm120check({"kernels", "--cc", "12.0", lib});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // one module only as PTX on 12.0
  EXPECT_EQ(r.out, lib + ": 2 fat binaries, 4 entries (1 compressed)\n"
                         "  cubin  sm_80 (x1), sm_90 (x1), sm_120 (x1)\n"
                         "  ptx    compute_80 (PTX 9.0, x1)\n"
                         "  12.0: ptx-jit: 1 of 2 modules only as PTX, JIT-compiled by the "
                         "driver at first load (modules: 1 exact, 1 ptx-jit)\n"
                         "summary: 1 file examined, 1 with CUDA code\n");
  EXPECT_EQ(test::run_sm120check({"kernels", "--cc", "9.0", lib}).exit_code, 1);
  // --cc repeated, each with one value; a PATH right after it stays a PATH.
  const test::RunResult two = test::run_sm120check({"kernels", "--cc", "12.1", "--cc", "12.0", lib});
  EXPECT_EQ(two.exit_code, 1) << two.err;
  EXPECT_NE(two.out.find("  12.0: ptx-jit"), std::string::npos) << two.out;
  EXPECT_LT(two.out.find("  12.0: "), two.out.find("  12.1: ")) << two.out;
  EXPECT_EQ(test::run_sm120check({"kernels", "--cc", "8.0", lib}).exit_code, 0);
  const std::string sm120 = (fixtures() / "sm120_ptx120.o").string();
  EXPECT_EQ(test::run_sm120check({"kernels", "--cc", "12.0", sm120}).exit_code, 0);
  EXPECT_EQ(test::run_sm120check({"kernels", "--cc", "12.1", sm120}).exit_code, 0);
  EXPECT_EQ(test::run_sm120check({"kernels", "--cc", "9.0", sm120}).exit_code, 2);
  EXPECT_EQ(test::run_sm120check({"kernels", "--no-gpu", sm120}).exit_code, 0);
  const test::RunResult missing = test::run_sm120check({"kernels", "--cc", "12.0", "/nonexistent"});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_EQ(missing.err, "sm120check: error: /nonexistent: no such file or directory\n");
  EXPECT_EQ(test::run_sm120check({"kernels", "--cc", "12.9x", sm120}).exit_code, 3);
}

TEST(KernelHostile, FifoIsRefusedWithoutBlocking) {
  test::TempDir dir;
  const std::string fifo = dir / "lib.so";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto listed = std::async(std::launch::async, [&] { return list_kernels(fifo); });
  if (listed.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    ADD_FAILURE() << "list_kernels blocked in open() on a FIFO";
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // releases the open
    listed.wait();
    if (writer >= 0) ::close(writer);
    return;
  }
  try {
    listed.get();
    ADD_FAILURE() << "a FIFO was listed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), fifo + ": not a regular file");
  }
  const test::RunResult r = test::run_sm120check({"kernels", "--no-gpu", fifo});
  EXPECT_EQ(r.exit_code, 3);
}

// Review: a cubin built for the family target sm_120f read "exact: sm_120 SASS" on 12.0 and
// "SASS of an earlier 12.x (binary compatible)" on 12.1; it is a family-specific build, and the
// text now names it and says what its suffix means (CUDA Programming Guide, "Feature
// Availability").
TEST(KernelsCommand, AFamilySpecificCubinIsNamedAsSuch) {
  const test::RunResult r = test::run_sm120check(
      {"kernels", "--cc", "12.0", "--cc", "12.1", (fixtures() / "sm120f.o").string(),
       (fixtures() / "libtwo.so").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // libtwo.so needs PTX JIT (kernels: exit 1)
  const std::string note = " (sm_120f is a family-specific build: it runs on 12.y for y >= 0, "
                           "the 12.x family)\n";
  EXPECT_NE(r.out.find("  12.0: exact: sm_120f SASS in its module" + note), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  12.1: compatible: sm_120f SASS in 1 of 1 module" + note),
            std::string::npos)
      << r.out;
  // A plain sm_120 cubin keeps the plain words.
  EXPECT_NE(r.out.find("(modules: 1 exact, 1 ptx-jit)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("sm_120 is"), std::string::npos) << r.out;
}

TEST(KernelsCommand, ModulesForOtherArchitecturesOnlyAreCountedNotFailed) {
  // One module with sm_120a SASS, one with sm_90 only: the second cannot launch on 12.0. The
  // text says so; the exit code follows the modules that have an image (README, exit codes).
  test::TempDir dir;
  const auto section = [](const fs::path& object) {
    // The fat binary: a 16-byte header whose u64 at 8 is the size of what follows.
    const std::uint64_t at = list_kernels(object.string()).fatbins.at(0).offset;
    const std::string bytes = test::read_file(object);
    std::uint64_t size = 0;
    std::memcpy(&size, bytes.data() + at + 8, 8);
    return bytes.substr(at, 16 + size);
  };
  test::write_file(dir / "two.fatbin", section(fixtures() / "sm120a.o") + section(fixtures() / "sm90.o"));
  const test::RunResult r = test::run_sm120check({"kernels", "--cc", "12.0", dir / "two.fatbin"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  12.0: exact: sm_120a SASS in 1 module (sm_120a is architecture-specific: "
                       "it runs on 12.0 only); 1 of 2 modules have no image for "
                       "12.0 (built for other architectures only: their kernels cannot launch "
                       "here)\n"),
            std::string::npos)
      << r.out;
}

TEST(KernelsCommand, DirectoryWalkListsOnlyFilesWithCudaCodeAndBrokenOnes) {
  test::TempDir dir;
  fs::create_directories(dir / "lib/sub");
  fs::copy_file(fixtures() / "sm120a.o", dir / "lib/sub/a.o");
  fs::copy_file(fixtures() / "saxpy.cu", dir / "lib/saxpy.cu");
  fs::create_symlink("sub/a.o", dir / "lib/link.o");  // not followed: listed once
  std::string broken = test::read_file(fixtures() / "sm90.o");
  broken.resize(broken.size() / 2);
  test::write_file(dir / "lib/broken.so", broken);
  const test::RunResult r =
      test::run_sm120check({"kernels", "--cc", "12.0", "--format", "json", dir / "lib"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema"], "sm120check.kernels/1");
  EXPECT_EQ(doc["files_examined"], 3);
  ASSERT_EQ(doc["files"].size(), 2u);
  EXPECT_EQ(doc["files"][0]["path"], dir / "lib/broken.so");
  EXPECT_FALSE(doc["files"][0]["error"].is_null());
  const nlohmann::json& a = doc["files"][1];
  EXPECT_EQ(a["path"], dir / "lib/sub/a.o");
  EXPECT_EQ(a["fat_binaries"][0]["entries"][0]["arch"], "sm_120a");
  EXPECT_EQ(a["fat_binaries"][0]["entries"][0]["variant"], "a");
  EXPECT_EQ(a["fat_binaries"][0]["entries"][0]["functions"], 1);
  EXPECT_EQ(a["fits"][0]["cc"], "12.0");
  EXPECT_EQ(a["fits"][0]["fit"], "exact");
  EXPECT_EQ(a["fits"][0]["module_fits"][0]["arch"], "sm_120a");
  EXPECT_EQ(doc["exit_code"], 3);
}

// Hostile review #9: `kernels DIR` walked with std::filesystem's recursive iterator, which opens
// each folder by its whole path and keeps every level's path: at 2000 levels 12.6 s and 256 MB,
// and past PATH_MAX (4096 bytes) the walk failed. A cubin at the bottom of 3000 levels ("dd",
// 9000 bytes of path) is now listed, quickly.
TEST(KernelsCommand, DeepChainIsWalkedPastPathMax) {
  test::TempDir dir;
  const std::string cubin = test::read_file(fixtures() / "saxpy_sm120.cubin");
  test::make_deep_chain(dir.path(), "dd", 3000, {{"k.cubin", cubin}, {"note.txt", "x"}});
  const test::RunResult r = test::run_sm120check_within(
      60, {"kernels", "--cc", "12.0", "--format", "json", dir.path().string()});
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out.substr(0, 400) << r.err;
  EXPECT_EQ(doc["files_examined"], 2);
  ASSERT_EQ(doc["files"].size(), 1u);
  std::string expected = dir.path().string();
  for (int k = 0; k < 3000; ++k) expected += "/dd";
  EXPECT_EQ(doc["files"][0]["path"], expected + "/k.cubin");
  EXPECT_EQ(doc["files"][0]["fits"][0]["fit"], "exact");
  test::remove_deep(dir.path());
}

// A library that shrinks while it is mapped (`cp` over it during a scan): reading the pages past
// its new end raises SIGBUS. The listing of that file is an Error, and the process lives on. The
// hook truncates the copy after list_kernels_at() has mapped it and before it reads it.
std::string g_truncate_to_path;
off_t g_truncate_to_size = 0;
void truncate_after_map(const std::string& path) {
  if (path == g_truncate_to_path) ASSERT_EQ(::truncate(path.c_str(), g_truncate_to_size), 0);
}

TEST(KernelListing, AFileThatShrinksWhileMappedIsAnErrorNotACrash) {
  test::TempDir dir;
  for (const off_t size : {off_t{0}, off_t{4096}, off_t{8192}}) {
    SCOPED_TRACE(size);
    const std::string copy = dir / "libtwo.so";
    fs::copy_file(fixtures() / "libtwo.so", copy, fs::copy_options::overwrite_existing);
    ASSERT_GT(fs::file_size(copy), 3 * 4096u);
    g_truncate_to_path = copy;
    g_truncate_to_size = size;
    detail::set_kernels_mapped_hook(truncate_after_map);
    try {
      (void)list_kernels(copy);
      ADD_FAILURE() << "no error for a file that shrank while it was read";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("changed while it was read"), std::string::npos)
          << e.what();
    }
    detail::set_kernels_mapped_hook(nullptr);
  }
  // The same file read while still: listed as before.
  fs::copy_file(fixtures() / "libtwo.so", dir / "libtwo.so", fs::copy_options::overwrite_existing);
  const KernelListing again = list_kernels(dir / "libtwo.so");
  EXPECT_TRUE(again.error.empty());
  EXPECT_EQ(again.fatbins.size(), list_fixture("libtwo.so").fatbins.size());
  EXPECT_FALSE(again.fatbins.empty());
}

// The handler only covers the mapping a listing reads: any other SIGBUS still ends the process
// (killed by SIGBUS; under AddressSanitizer, whose handler was installed first, its report and
// exit 1). The child exits 0 only if the read went on.
TEST(KernelListingDeathTest, AnotherSigbusStillKills) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  (void)list_fixture("libtwo.so");  // installs the handler
  test::TempDir dir;
  const std::string file = dir / "f";
  test::write_file(file, std::string(3 * 4096, 'x'));
  EXPECT_EXIT(
      {
        (void)list_fixture("libtwo.so");
        const int fd = ::open(file.c_str(), O_RDONLY);
        void* map = ::mmap(nullptr, 3 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
        if (::ftruncate(::open(file.c_str(), O_WRONLY), 0) != 0) ::_exit(2);
        volatile const char c = static_cast<const char*>(map)[2 * 4096];
        (void)c;
        ::_exit(0);
      },
      [](int status) {
        return (WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) ||
               (WIFEXITED(status) && WEXITSTATUS(status) == 1);
      },
      "");
}

}  // namespace
}  // namespace sm120check

namespace sm120check {
namespace {

// A file that starts like ELF but whose identification libelf refuses without recording why:
// the error said "not a valid ELF file: no error".
TEST(KernelListing, CutElfIdentificationSaysWhy) {
  const std::string text = "\x7f" "ELF garbage";
  const std::vector<unsigned char> bytes(text.begin(), text.end());
  const KernelListing l = list_kernels_in_memory(bytes, "g.so");
  EXPECT_EQ(l.error, "not a valid ELF file: its ELF identification is cut short or names an "
                     "unknown class or byte order");
}

}  // namespace
}  // namespace sm120check

namespace sm120check {
namespace {

/// Sets detail::set_kernel_threads() for a scope.
struct KernelThreadsFor {
  explicit KernelThreadsFor(unsigned threads) { detail::set_kernel_threads(threads); }
  ~KernelThreadsFor() { detail::set_kernel_threads(0); }
};

// for_each_concurrently(): every item once, and never more than kernel_threads() threads
// working, a call inside another's work included (files listed at once, each decompressing its
// entries at once), threads that ran out of items of their own helping; the first exception
// comes back after every item ran.
TEST(KernelThreads, EveryItemOnceAndNeverMoreThreadsThanTheBound) {
  const KernelThreadsFor four(4);
  constexpr std::size_t kOuter = 40, kInner = 50;
  std::vector<std::atomic<int>> runs(kOuter * kInner);
  std::atomic<int> working{0}, most{0};
  thread_local int depth = 0;
  const auto enter = [&] {
    if (depth++ > 0) return;
    const int now = ++working;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
  };
  const auto leave = [&] {
    if (--depth == 0) --working;
  };
  for_each_concurrently(kOuter, [&](std::size_t outer) {
    enter();
    // The last outer items have many inner ones: the threads done with theirs help there.
    const std::size_t inner_count = outer + 1 == kOuter ? 20 * kInner : kInner;
    std::vector<std::atomic<int>> extra(inner_count);
    for_each_concurrently(inner_count, [&](std::size_t inner) {
      enter();
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      if (inner < kInner) ++runs[outer * kInner + inner];
      ++extra[inner];
      leave();
    });
    for (std::size_t k = 0; k < inner_count; ++k) ASSERT_EQ(extra[k].load(), 1) << outer << " " << k;
    leave();
  });
  for (std::size_t k = 0; k < runs.size(); ++k) ASSERT_EQ(runs[k].load(), 1) << k;
  EXPECT_LE(most.load(), 4);
  EXPECT_GE(most.load(), 1);

  std::atomic<int> ran{0};
  EXPECT_THROW(for_each_concurrently(100,
                                     [&](std::size_t item) {
                                       ++ran;
                                       if (item == 7) throw Error("item 7");
                                     }),
               Error);
  EXPECT_EQ(ran.load(), 100);
  for_each_concurrently(0, [](std::size_t) { ADD_FAILURE() << "no item to run"; });
}

/// kernels_document() of `listings` judged for 12.0 and 9.0, without the tool's version.
nlohmann::ordered_json document_of(std::vector<KernelListing> listings) {
  KernelsReport report;
  report.capabilities = {{9, 0}, {12, 0}};
  report.gpu_source = "override";
  for (KernelListing& l : listings) {
    std::vector<FileFit> fits;
    for (const ComputeCapability& cc : report.capabilities) fits.push_back(file_fit(l, cc));
    report.fits.push_back(std::move(fits));
    report.files.push_back(std::move(l));
  }
  nlohmann::ordered_json doc = kernels_document(report, kernels_exit_code(report));
  doc.erase("tool");
  return doc;
}

// A file's compressed entries decompressed on several threads (when the budget covers them all)
// give the listing that one thread gives: every fixture, and a bare fat binary of many modules
// with compressed cubins and PTX (the fixtures' .fatbin files one after the other).
TEST(KernelThreads, EntriesDecompressedAtOnceGiveTheSerialListing) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(fixtures()))
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  test::TempDir dir;
  std::string many;
  for (int copy = 0; copy < 4; ++copy)
    for (const std::string& name : {"subset_big_z.fatbin", "saxpy.fatbin", "ptx120_cudart_static.fatbin"})
      many += test::read_file(fixtures() / name);
  test::write_file(dir.path() / "many.fatbin", many);
  std::vector<std::string> paths;
  for (const std::string& name : names) paths.push_back((fixtures() / name).string());
  paths.push_back(dir / "many.fatbin");
  const auto list_all = [&] {
    std::vector<KernelListing> out;
    for (const std::string& path : paths) out.push_back(list_kernels(path));
    return out;
  };
  std::vector<KernelListing> serial, parallel;
  {
    const KernelThreadsFor one(1);
    serial = list_all();
  }
  {
    const KernelThreadsFor eight(8);
    parallel = list_all();
  }
  const KernelListing& big = serial.back();
  ASSERT_EQ(big.error, "");
  std::size_t compressed = 0;
  for (const FatBinary& f : big.fatbins)
    for (const KernelEntry& e : f.entries) {
      if (e.kind != KernelEntryKind::kCubin || !e.compressed()) continue;
      ++compressed;
      EXPECT_TRUE(e.functions.has_value()) << e.arch_name() << " at " << e.offset;
    }
  EXPECT_GE(compressed, 8u);
  const nlohmann::ordered_json one = document_of(std::move(serial));
  const nlohmann::ordered_json eight = document_of(std::move(parallel));
  ASSERT_EQ(one["files"].size(), eight["files"].size());
  for (std::size_t k = 0; k < one["files"].size(); ++k)
    EXPECT_EQ(one["files"][k].dump(1), eight["files"][k].dump(1)) << paths[k];
}

// A mapped file's data sections are given back to the system once searched (release_pages():
// madvise MADV_DONTNEED); the images found there are read again from the file afterwards.
// embedded.o's .rodata (0x60 to 0x1ec0) holds two cubins, the second across the page given
// back: listed from the file as from a copy in memory (whose pages are never given back).
TEST(KernelListing, DataSectionPagesGivenBackAreReadAgainFromTheFile) {
  const fs::path path = fixtures() / "embedded.o";
  const KernelListing mapped = list_kernels(path.string());
  const KernelListing copy = list_kernels_in_memory(bytes_of(path), path.string());
  ASSERT_EQ(mapped.error, "");
  ASSERT_GE(mapped.fatbins.size(), 2u);
  EXPECT_TRUE(mapped.fatbins[1].entries.at(0).functions.has_value());
  EXPECT_EQ(document_of({mapped}).dump(1), document_of({copy}).dump(1));
}

// `kernels DIR` lists its files on several threads, 64 open at a time: the report is the one
// that listing each file alone gives, in path order, whatever the folder (three copies of the
// fixtures, 130 files or so, in folders at three depths, beside files without CUDA code).
TEST(KernelsCommand, DirectoryListedAtOnceEqualsEachFileListedAlone) {
  test::TempDir dir;
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(fixtures()))
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const std::string& folder : {"", "a", "b/c"}) {
    fs::create_directories(dir.path() / folder);
    for (const std::string& name : names) fs::copy_file(fixtures() / name, dir.path() / folder / name);
    test::write_file(dir.path() / folder / "notes.txt", "no CUDA code here\n");
  }
  const test::RunResult all =
      test::run_sm120check({"kernels", "--cc", "12.0", "--cc", "9.0", "--format", "json", dir.path().string()});
  ASSERT_TRUE(all.exit_code == 2 || all.exit_code == 3) << all.err;
  const nlohmann::json doc = nlohmann::json::parse(all.out);
  EXPECT_EQ(doc["files_examined"], 3 * (names.size() + 1));
  std::vector<std::string> paths;
  for (const auto& f : doc["files"]) paths.push_back(f["path"]);
  EXPECT_TRUE(std::is_sorted(paths.begin(), paths.end()));
  std::map<std::string, nlohmann::json> alone;  // by file name: the first copy's listing
  std::size_t compared = 0;
  for (const auto& f : doc["files"]) {
    const fs::path path = f["path"].get<std::string>();
    const std::string name = path.filename().string();
    auto it = alone.find(name);
    if (it == alone.end()) {
      const test::RunResult one = test::run_sm120check(
          {"kernels", "--cc", "12.0", "--cc", "9.0", "--format", "json", path.string()});
      it = alone.emplace(name, nlohmann::json::parse(one.out)["files"].at(0)).first;
    }
    nlohmann::json expected = it->second;
    expected["path"] = path.string();
    EXPECT_EQ(f.dump(1), expected.dump(1)) << path;
    ++compared;
  }
  EXPECT_GT(compared, 64u);
  EXPECT_EQ(compared % 3, 0u);
}

// BufferPool: bytes mapped at once never pass the limit; a buffer given back serves the next
// request it is large enough for (no fresh mapping); a request over the limit goes alone, once
// nothing is held, and is unmapped after; every request is met (8 threads, 2000 requests of up
// to 1.5 times the limit).
TEST(KernelThreads, BufferPoolMapsAtMostItsLimitReusesAndMeetsEveryRequest) {
  BufferPool pool(100 << 12);
  const std::uint64_t unit = 1 << 12;
  unsigned char* first = nullptr;
  std::atomic<bool> got{false};
  std::atomic<unsigned char*> second{nullptr};
  std::thread waiter;
  {
    const BufferPool::Lease a = pool.take(60 * unit);
    first = a.bytes().data();
    std::memset(a.bytes().data(), 1, a.bytes().size());  // usable memory
    waiter = std::thread([&] {
      const BufferPool::Lease b = pool.take(50 * unit);  // 110 > 100: waits for the 60
      got = true;
      second = b.bytes().data();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(got.load());
  }
  waiter.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(second.load(), first);  // the 60 reused for the 50
  EXPECT_EQ(pool.held(), 0u);
  EXPECT_EQ(pool.mapped(), 60 * unit);
  {
    const BufferPool::Lease big = pool.take(150 * unit);  // over the limit, nothing held: met
    EXPECT_EQ(big.bytes().size(), 150 * unit);
    EXPECT_EQ(pool.mapped(), 150 * unit);  // the 60 unmapped to make room
  }
  EXPECT_EQ(pool.mapped(), 0u);  // over the limit: not kept

  std::atomic<std::uint64_t> in_use{0}, most{0};
  std::atomic<int> over_alone_broken{0}, mapped_broken{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (unsigned k = 0; k < 250; ++k) {
        const std::uint64_t bytes = (1 + (t * 37 + k * 11) % 150) * unit;
        const BufferPool::Lease lease = pool.take(bytes);
        const std::uint64_t size = lease.bytes().size();
        if (size < bytes) ++over_alone_broken;
        lease.bytes()[0] = 1;
        lease.bytes()[size - 1] = 1;
        const std::uint64_t now = in_use += size;
        if (bytes > 100 * unit && now != size) ++over_alone_broken;
        if (bytes <= 100 * unit) {
          if (pool.mapped() > 100 * unit) ++mapped_broken;
          for (std::uint64_t seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
          }
        }
        std::this_thread::yield();
        in_use -= size;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_LE(most.load(), 100 * unit);
  EXPECT_EQ(over_alone_broken.load(), 0);
  EXPECT_EQ(mapped_broken.load(), 0);
  EXPECT_EQ(pool.held(), 0u);
  EXPECT_LE(pool.mapped(), 100 * unit);
}

// find_embedded_cuda() with `searched`: each pass reports [0, size) in order, in steps of
// kSearchedStep or more, and reads nothing it has reported (the pages are made unreadable as
// they are reported, readable again when a pass ends: a read of one would crash the test). The
// images are found as without it: embedded.o's two, copied so that they straddle the first two
// step boundaries, in a region of 40 MiB.
TEST(KernelListing, EmbeddedSearchReportsWhatItWillNotReadAgain) {
  const std::vector<unsigned char> file = bytes_of(fixtures() / "embedded.o");
  const std::size_t size = 40u << 20;
  void* map = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* region = static_cast<unsigned char*>(map);
  // The file without its own ELF header, twice: at 16 MiB - 3000 and at 32 MiB - 5000.
  const std::size_t body = file.size() - 1;
  std::memcpy(region + (16u << 20) - 3000, file.data() + 1, body);
  std::memcpy(region + (32u << 20) - 5000, file.data() + 1, body);
  std::vector<FatBinary> plain, reported;
  std::size_t left_plain = kMaxFatBinaryEntries, left_reported = kMaxFatBinaryEntries;
  const std::size_t found_plain =
      find_embedded_cuda({region, size}, 0, left_plain, plain);
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  const long page = ::sysconf(_SC_PAGESIZE);
  const auto searched = [&](std::size_t from, std::size_t to) {
    ranges.emplace_back(from, to);
    if (to == size) {  // a pass ended: readable again for the next
      ASSERT_EQ(::mprotect(region, size, PROT_READ | PROT_WRITE), 0);
      return;
    }
    const std::size_t a = (from + static_cast<std::size_t>(page) - 1) & ~(static_cast<std::size_t>(page) - 1);
    const std::size_t b = to & ~(static_cast<std::size_t>(page) - 1);
    if (b > a) ASSERT_EQ(::mprotect(region + a, b - a, PROT_NONE), 0);
  };
  const std::size_t found_reported =
      find_embedded_cuda({region, size}, 0, left_reported, reported, searched);
  ASSERT_EQ(::mprotect(region, size, PROT_READ | PROT_WRITE), 0);
  EXPECT_EQ(found_plain, 4u);
  EXPECT_EQ(found_reported, found_plain);
  EXPECT_EQ(left_reported, left_plain);
  ASSERT_EQ(reported.size(), plain.size());
  for (std::size_t k = 0; k < plain.size(); ++k) {
    EXPECT_EQ(reported[k].offset, plain[k].offset);
    EXPECT_EQ(reported[k].entries.size(), plain[k].entries.size());
  }
  // Two passes, each from 0 to the end without gaps, every step but a pass's last of 16 MiB or
  // more.
  std::size_t passes = 0, at = 0;
  for (const auto& [from, to] : ranges) {
    EXPECT_EQ(from, at);
    EXPECT_GT(to, from);
    if (to != size) EXPECT_GE(to - from, kSearchedStep);
    at = to == size ? 0 : to;
    passes += to == size ? 1 : 0;
  }
  EXPECT_EQ(passes, 2u);
  EXPECT_GE(ranges.size(), 4u);  // 40 MiB: at least one step before each pass's end
  ::munmap(map, size);
}

// parse_fat_binaries() with `parsed`: ranges from 0 on, without gaps, each of 16 MiB or more,
// never read again (made unreadable as they are given: a read would crash the test); the fat
// binaries are those parsed without it (saxpy.fatbin 6000 times, 36 MiB).
TEST(KernelListing, FatBinaryParseReportsWhatItWillNotReadAgain) {
  const std::vector<unsigned char> one = bytes_of(fixtures() / "saxpy.fatbin");
  const std::size_t copies = 6000, size = copies * one.size();
  void* map = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* region = static_cast<unsigned char*>(map);
  for (std::size_t k = 0; k < copies; ++k) std::memcpy(region + k * one.size(), one.data(), one.size());
  std::vector<FatBinary> plain, reported;
  ASSERT_EQ(parse_fat_binaries({region, size}, 0, "s", plain), "");
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const auto parsed = [&](std::size_t from, std::size_t to) {
    ranges.emplace_back(from, to);
    const std::size_t a = (from + page - 1) & ~(page - 1), b = to & ~(page - 1);
    if (b > a) ASSERT_EQ(::mprotect(region + a, b - a, PROT_NONE), 0);
  };
  EXPECT_EQ(parse_fat_binaries({region, size}, 0, "s", reported, parsed), "");
  ASSERT_EQ(::mprotect(region, size, PROT_READ | PROT_WRITE), 0);
  ASSERT_EQ(reported.size(), copies);
  ASSERT_EQ(plain.size(), copies);
  for (std::size_t k = 0; k < copies; ++k) {
    EXPECT_EQ(reported[k].offset, plain[k].offset);
    EXPECT_EQ(reported[k].entries.size(), plain[k].entries.size());
  }
  ASSERT_EQ(ranges.size(), 2u);  // 36 MiB: at 16 MiB and past 32 MiB
  std::size_t at = 0;
  for (const auto& [from, to] : ranges) {
    EXPECT_EQ(from, at);
    EXPECT_GE(to - from, kSearchedStep);
    EXPECT_EQ(to % one.size(), 0u);  // at a fat binary's start
    at = to;
  }
  ::munmap(map, size);
}

/// Sets detail::set_kept_buffer_bytes() for a scope.
struct KeptBufferBytesFor {
  explicit KeptBufferBytesFor(std::uint64_t bytes) { detail::set_kept_buffer_bytes(bytes); }
  ~KeptBufferBytesFor() { detail::set_kept_buffer_bytes(0); }
};

// A mapped file's compressed payloads are read with pread into the thread's kept buffers, or,
// over kept_buffer_bytes(), into buffers of large_buffers(), the shared pool: every
// fixture lists as a copy in memory does (payloads read in place), on one thread and on eight,
// with payloads of 1 KiB or more on the large path; the budget is all given back after.
TEST(KernelListing, PayloadsReadFromTheFileOrInOwnBuffersGiveTheSameListing) {
  std::vector<std::string> paths;
  for (const fs::directory_entry& e : fs::directory_iterator(fixtures()))
    if (e.is_regular_file()) paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<KernelListing> in_memory;
  for (const std::string& path : paths) in_memory.push_back(list_kernels_in_memory(bytes_of(path), path));
  const nlohmann::ordered_json expected = document_of(in_memory);
  std::size_t large = 0;
  for (const KernelListing& l : in_memory)
    for (const FatBinary& f : l.fatbins)
      for (const KernelEntry& e : f.entries)
        if (e.compressed() && e.uncompressed_size > 1024) ++large;
  EXPECT_GE(large, 8u);
  for (const unsigned threads : {1u, 8u})
    for (const std::uint64_t kept : {std::uint64_t{0}, std::uint64_t{1024}}) {
      SCOPED_TRACE(fmt::format("{} threads, kept buffers of {} bytes", threads, kept));
      const KernelThreadsFor t(threads);
      const KeptBufferBytesFor k(kept);
      std::vector<KernelListing> mapped;
      for (const std::string& path : paths) mapped.push_back(list_kernels(path));
      const nlohmann::ordered_json got = document_of(mapped);
      ASSERT_EQ(got["files"].size(), expected["files"].size());
      for (std::size_t n = 0; n < got["files"].size(); ++n)
        EXPECT_EQ(got["files"][n].dump(1), expected["files"][n].dump(1)) << paths[n];
      EXPECT_EQ(large_buffers().held(), 0u);
    }
}

}  // namespace
}  // namespace sm120check
