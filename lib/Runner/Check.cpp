//===- Check.cpp - Checking a kernel's output -----------------------------===//
//
// The row sample, the comparison with the reference (norms, NaN, guard,
// mismatches) and the lines that describe a failed output so that its author
// can see the pattern: which rows, which positions in the CTA tile, which
// columns.
//
//===----------------------------------------------------------------------===//

#include "fa4/Runner/Check.h"
#include "fa4/Runner/Element.h"
#include "fa4/Runner/Random.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

using namespace fa4::runner;

/// Stream of the row sampler's hash, apart from the inputs' streams.
static constexpr uint64_t kSampleStream = 0x5a4d;

std::vector<uint64_t> fa4::runner::sampleRows(uint64_t count, uint64_t limit) {
  assert(limit >= 2 && "a sample holds the first and the last row");
  std::vector<uint64_t> rows;
  if (count <= limit) {
    for (uint64_t r = 0; r < count; ++r)
      rows.push_back(r);
    return rows;
  }
  for (uint64_t s = 0; s < limit; ++s) {
    uint64_t begin = count * s / limit, end = count * (s + 1) / limit;
    uint64_t row = begin + randomBits(0, kSampleStream, s) % (end - begin);
    if (s == 0)
      row = 0;
    if (s == limit - 1)
      row = count - 1;
    rows.push_back(row);
  }
  return rows;
}

bool CheckReport::passed() const {
  return checkedElements > 0 && nanElements == 0 && guardChanged == 0 &&
         relativeError <= kMaxRelativeError;
}

CheckReport fa4::runner::checkOutput(fa4::runtime::ElementType type,
                                     const std::vector<uint16_t> &output,
                                     uint64_t cols,
                                     const std::vector<uint16_t> &guard,
                                     const std::vector<uint64_t> &rows,
                                     const std::vector<double> &reference) {
  assert(reference.size() == rows.size() * cols && "one reference per element");
  CheckReport report;
  report.cols = cols;
  report.rows = output.size() / cols;
  report.checkedRows = rows.size();
  report.checkedElements = rows.size() * cols;

  for (uint64_t i = 0; i < output.size(); ++i)
    if (isNaNWord(type, output[i]) && report.nanElements++ == 0)
      report.firstNaN = i;
  for (uint16_t word : guard)
    report.guardChanged += word != 0xffff;

  double refSquares = 0;
  for (double want : reference)
    refSquares += want * want;
  double rms =
      std::sqrt(refSquares / double(std::max<size_t>(1, reference.size())));

  double errSquares = 0;
  double worst = -1;
  std::set<uint64_t> badRows, badCols;
  for (uint64_t r = 0; r < rows.size(); ++r) {
    for (uint64_t c = 0; c < cols; ++c) {
      uint16_t word = output[rows[r] * cols + c];
      double want = reference[r * cols + c];
      if (isNaNWord(type, word)) {
        ++report.nanChecked;
        continue;
      }
      double got = fromWord(type, word);
      double err = std::fabs(got - want);
      errSquares += err * err;
      report.maxAbsError = std::max(report.maxAbsError, err);
      if (err > kMismatchTolerance * (std::fabs(want) + rms)) {
        ++report.mismatches;
        badRows.insert(rows[r]);
        badCols.insert(c);
      }
      if (err > worst) {
        worst = err;
        report.worstRow = rows[r];
        report.worstCol = c;
        report.worstGot = got;
        report.worstWant = want;
      }
    }
  }
  report.relativeError = refSquares > 0   ? std::sqrt(errSquares / refSquares)
                         : errSquares > 0 ? INFINITY
                                          : 0;
  report.mismatchRows.assign(badRows.begin(), badRows.end());
  report.mismatchCols.assign(badCols.begin(), badCols.end());
  return report;
}

/// `values` (sorted) as ranges, "0-63, 128-191", at most 16 of them.
static std::string ranges(const std::vector<uint64_t> &values) {
  std::string text;
  unsigned count = 0;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1)
      ++j;
    if (count++ == 16)
      return text + ", ...";
    text += (text.empty() ? "" : ", ") + std::to_string(values[i]);
    if (j > i)
      text += "-" + std::to_string(values[j]);
    i = j + 1;
  }
  return text;
}

static std::string number(const char *format, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

std::vector<std::string> fa4::runner::describeFailure(const CheckReport &report,
                                                      const RowNaming &naming) {
  std::vector<std::string> lines;
  if (report.passed())
    return lines;
  if (report.nanElements)
    lines.push_back(
        "nan: " + std::to_string(report.nanElements) + " of " +
        std::to_string(report.rows * report.cols) +
        " output elements are NaN (unwritten poison, or computed); the first "
        "at " +
        naming.name(report.firstNaN / report.cols) + " col " +
        std::to_string(report.firstNaN % report.cols) + "; " +
        std::to_string(report.nanChecked) + " in checked rows");
  if (report.guardChanged)
    lines.push_back("out of bounds: " + std::to_string(report.guardChanged) +
                    " elements of the guard region after the output were "
                    "written");
  if (report.relativeError > kMaxRelativeError)
    lines.push_back("error: rel_err=" + number("%.3e", report.relativeError) +
                    " over " + std::to_string(report.checkedRows) +
                    " checked rows exceeds " +
                    number("%.0e", kMaxRelativeError));
  if (report.mismatches == 0)
    return lines;
  lines.push_back(
      "mismatch: " + std::to_string(report.mismatches) + " of " +
      std::to_string(report.checkedElements - report.nanChecked) +
      " finite checked elements off by more than (|ref| + rms(ref))/64, in " +
      std::to_string(report.mismatchRows.size()) + " of " +
      std::to_string(report.checkedRows) + " checked rows and " +
      std::to_string(report.mismatchCols.size()) + " of " +
      std::to_string(report.cols) + " columns");
  lines.push_back("worst: " + naming.name(report.worstRow) + " col " +
                  std::to_string(report.worstCol) + ": got " +
                  number("%.6g", report.worstGot) + ", want " +
                  number("%.6g", report.worstWant));
  std::string names;
  for (size_t i = 0; i < report.mismatchRows.size() && i < 12; ++i)
    names += (i ? ", " : "") + naming.name(report.mismatchRows[i]);
  if (report.mismatchRows.size() > 12)
    names += ", ...";
  lines.push_back("mismatch rows: " + names);
  std::set<uint64_t> positions;
  for (uint64_t row : report.mismatchRows)
    positions.insert(naming.tilePosition(row));
  lines.push_back("mismatch rows within the CTA tile: " +
                  ranges({positions.begin(), positions.end()}));
  lines.push_back("mismatch columns: " + ranges(report.mismatchCols));
  return lines;
}

bool RowValueReport::passed() const {
  return checkedRows > 0 && nanValues == 0 && guardChanged == 0 &&
         mismatches == 0;
}

RowValueReport fa4::runner::checkRowValues(const std::vector<float> &values,
                                           const std::vector<float> &guard,
                                           const std::vector<uint64_t> &rows,
                                           const std::vector<double> &reference) {
  assert(reference.size() == rows.size() && "one reference per checked row");
  RowValueReport report;
  report.rows = values.size();
  report.checkedRows = rows.size();
  for (float value : values)
    report.nanValues += std::isnan(value);
  for (float word : guard) {
    uint32_t bits;
    std::memcpy(&bits, &word, sizeof(bits));
    report.guardChanged += bits != 0xffffffffu;
  }
  double worst = -1;
  for (uint64_t r = 0; r < rows.size(); ++r) {
    double got = values[rows[r]], want = reference[r];
    double err;
    if (std::isinf(want) || std::isinf(got))
      err = got == want ? 0 : INFINITY;
    else
      err = std::fabs(got - want) / std::max(1.0, std::fabs(want));
    if (std::isnan(got))
      err = INFINITY;
    report.mismatches += !(err <= kMaxRowValueError);
    if (std::isfinite(err))
      report.maxError = std::max(report.maxError, err);
    if (err > worst) {
      worst = err;
      report.worstRow = rows[r];
      report.worstGot = got;
      report.worstWant = want;
    }
  }
  return report;
}

std::vector<std::string>
fa4::runner::describeFailure(const RowValueReport &report,
                             const RowNaming &naming, const std::string &what) {
  std::vector<std::string> lines;
  if (report.passed())
    return lines;
  if (report.nanValues)
    lines.push_back(what + " nan: " + std::to_string(report.nanValues) +
                    " of " + std::to_string(report.rows) +
                    " values are NaN (unwritten poison, or computed)");
  if (report.guardChanged)
    lines.push_back(what + " out of bounds: " +
                    std::to_string(report.guardChanged) +
                    " values of the guard region after it were written");
  if (report.mismatches)
    lines.push_back(what + " mismatch: " + std::to_string(report.mismatches) +
                    " of " + std::to_string(report.checkedRows) +
                    " checked values off by more than " +
                    number("%.0e", kMaxRowValueError) +
                    " * max(1, |ref|); worst " + naming.name(report.worstRow) +
                    ": got " + number("%.6g", report.worstGot) + ", want " +
                    number("%.6g", report.worstWant));
  return lines;
}
