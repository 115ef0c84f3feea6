//===- HangReport.h - what a kernel built to diagnose hangs reports -*- C++ -*-===//
//
// A kernel planned with `debug_hangs` bounds every barrier wait. The thread
// whose wait times out first writes a record to host memory and traps; the
// runtime gives the kernel that memory before a launch and reads the record
// after the failure. This header is the one owner of that contract: the
// names of the kernel's globals, the record's layout, the site table's
// format, and the message made from them.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_KERNELFORMAT_HANGREPORT_H
#define FA4_KERNELFORMAT_HANGREPORT_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fa4::runtime {

/// A global u64 in the kernel's module: the device address of the record,
/// which the runtime sets after loading the module (0: the kernel traps
/// without writing).
inline constexpr const char *kHangReportGlobal = "fa4_hang_report";
/// A global u32: 0 until the first thread claims the right to write.
inline constexpr const char *kHangClaimGlobal = "fa4_hang_claim";
/// A constant i8 array: the site table, one NUL-terminated entry per site.
inline constexpr const char *kHangSitesGlobal = "fa4_hang_sites";

/// The record: u32 words, the magic written last (after a system fence).
enum HangWord : unsigned {
  kHangMagicWord = 0,
  kHangSiteWord,
  kHangStageWord,
  kHangPhaseWord,
  kHangBlockXWord,
  kHangBlockYWord,
  kHangBlockZWord,
  kHangThreadWord,
  kHangCyclesLowWord,
  kHangCyclesHighWord,
  kHangWords
};
/// "FA4H", little-endian.
inline constexpr uint32_t kHangMagic = 0x48344146;
/// How long a wait may take before it reports: 2^30 SM cycles, about half
/// a second on an H200.
inline constexpr uint64_t kHangCycles = uint64_t(1) << 30;

/// One site: a wait the kernel bounds. Its table entry is the fields joined
/// by '|': `role|firstThread|barrier|hasStage|location`.
struct HangSite {
  std::string role;      ///< producer, consumer, ...
  uint32_t firstThread;  ///< The role's first thread in the block.
  std::string barrier;   ///< "the k pipeline's full barrier", "named barrier 1"
  bool hasStage;         ///< Whether stage and phase mean something.
  std::string location;  ///< file:line of the program op, or "unknown".
};

/// The table entry of `site`.
std::string formatHangSite(const HangSite &site);
/// The sites of a table (NUL-separated entries); nullopt when malformed.
std::optional<std::vector<HangSite>> parseHangSites(std::string_view table);

/// What the record says, in words: "consumer warpgroup 1 waited 1073741903
/// cycles on the k pipeline's full barrier, stage 1, phase 0, at
/// Attention.cpp:118 (block (3, 0, 1), thread 200)". nullopt when the
/// record was not written (no magic).
std::optional<std::string> describeHang(const uint32_t (&record)[kHangWords],
                                        const std::vector<HangSite> &sites);

} // namespace fa4::runtime

#endif // FA4_KERNELFORMAT_HANGREPORT_H
