//===- HangReport.cpp - site tables and hang messages ---------------------===//
//
// The site table a kernel built with `debug_hangs` carries, and the message
// made from the record its timed-out thread wrote.
//
//===----------------------------------------------------------------------===//

#include "fa4/KernelFormat/HangReport.h"

#include <charconv>

using namespace fa4::runtime;

/// `text` with the table's separators ('|' and NUL) replaced by '?'.
static std::string field(std::string text) {
  for (char &c : text)
    if (c == '|' || c == '\0')
      c = '?';
  return text;
}

std::string fa4::runtime::formatHangSite(const HangSite &site) {
  return field(site.role) + "|" + std::to_string(site.firstThread) + "|" +
         field(site.barrier) + "|" + (site.hasStage ? "1" : "0") + "|" +
         field(site.location);
}

/// One entry: five '|'-separated fields, the second a number, the fourth
/// 0 or 1.
static std::optional<HangSite> parseSite(std::string_view entry) {
  std::vector<std::string_view> fields;
  for (size_t start = 0;;) {
    size_t bar = entry.find('|', start);
    fields.push_back(entry.substr(start, bar - start));
    if (bar == std::string_view::npos)
      break;
    start = bar + 1;
  }
  if (fields.size() != 5 || fields[0].empty() ||
      (fields[3] != "0" && fields[3] != "1"))
    return std::nullopt;
  HangSite site;
  site.role = fields[0];
  auto [end, error] = std::from_chars(
      fields[1].data(), fields[1].data() + fields[1].size(), site.firstThread);
  if (error != std::errc() || end != fields[1].data() + fields[1].size())
    return std::nullopt;
  site.barrier = fields[2];
  site.hasStage = fields[3] == "1";
  site.location = fields[4];
  return site;
}

std::optional<std::vector<HangSite>>
fa4::runtime::parseHangSites(std::string_view table) {
  // Trailing NULs (the global's padding) end the table.
  while (!table.empty() && table.back() == '\0')
    table.remove_suffix(1);
  std::vector<HangSite> sites;
  if (table.empty())
    return sites;
  for (size_t start = 0;;) {
    size_t nul = table.find('\0', start);
    std::optional<HangSite> site =
        parseSite(table.substr(start, nul - start));
    if (!site)
      return std::nullopt;
    sites.push_back(std::move(*site));
    if (nul == std::string_view::npos)
      break;
    start = nul + 1;
  }
  return sites;
}

std::optional<std::string>
fa4::runtime::describeHang(const uint32_t (&record)[kHangWords],
                           const std::vector<HangSite> &sites) {
  if (record[kHangMagicWord] != kHangMagic)
    return std::nullopt;
  uint32_t index = record[kHangSiteWord];
  uint32_t thread = record[kHangThreadWord];
  uint64_t cycles = uint64_t(record[kHangCyclesHighWord]) << 32 |
                    record[kHangCyclesLowWord];
  std::string where = " (block (" + std::to_string(record[kHangBlockXWord]) +
                      ", " + std::to_string(record[kHangBlockYWord]) + ", " +
                      std::to_string(record[kHangBlockZWord]) +
                      "), thread " + std::to_string(thread) + ")";
  if (index >= sites.size())
    return "thread waited " + std::to_string(cycles) +
           " cycles at hang site " + std::to_string(index) +
           ", which the kernel's site table (" + std::to_string(sites.size()) +
           " sites) does not have" + where;
  const HangSite &site = sites[index];
  std::string text = site.role;
  if (thread >= site.firstThread)
    text += " warpgroup " + std::to_string((thread - site.firstThread) / 128);
  text += " waited " + std::to_string(cycles) + " cycles on " + site.barrier;
  if (site.hasStage)
    text += ", stage " + std::to_string(record[kHangStageWord]) + ", phase " +
            std::to_string(record[kHangPhaseWord]);
  return text + ", at " + site.location + where;
}
