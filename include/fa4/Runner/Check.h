//===- Check.h - Checking a kernel's output ---------------------*- C++ -*-===//
//
// How the runner decides that an output is right. The whole output is scanned
// for NaN (the output is poisoned with 0xff bytes, a NaN, before the launch,
// so a NaN is an unwritten or a wrongly computed element) and a guard region
// after it for writes past the end; the rows of a deterministic sample are
// compared with a float64 reference. The output passes when nothing is NaN,
// the guard is intact and ‖out − ref‖ / ‖ref‖ over the sampled rows is at
// most 1e-2. A second output of one f32 per row (attention's log-sum-exp) is
// checked the same way, value by value. When it fails, the report says where: the worst element and the
// rows and columns of the elements off by more than a bf16 tolerance.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_RUNNER_CHECK_H
#define FA4_RUNNER_CHECK_H

#include "fa4/KernelFormat/Types.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fa4::runner {

/// The largest relative error ‖out − ref‖ / ‖ref‖ that passes.
inline constexpr double kMaxRelativeError = 1e-2;

/// An element counts as a mismatch, for the report only, when
/// |out − ref| > kMismatchTolerance · (|ref| + rms(ref)): 4 bf16 ulps.
inline constexpr double kMismatchTolerance = 1.0 / 64;

/// The rows to check out of `count`: all when `count <= limit`; otherwise
/// `limit` rows, one from each of `limit` equal strata of the rows, at an
/// offset in the stratum given by a fixed hash of the stratum's number, with
/// row 0 and row `count - 1` always in. Sorted, without repeats; the same for
/// the same arguments on every machine.
std::vector<uint64_t> sampleRows(uint64_t count, uint64_t limit);

/// The outcome of checking one output.
struct CheckReport {
  uint64_t rows = 0; ///< Rows of the output.
  uint64_t cols = 0; ///< Columns of the output.
  uint64_t checkedRows = 0;
  uint64_t checkedElements = 0;
  /// ‖out − ref‖ / ‖ref‖ and max |out − ref| over the finite checked
  /// elements.
  double relativeError = 0;
  double maxAbsError = 0;
  /// NaN elements in the whole output, the first of them (row-major index),
  /// and how many of them are in checked rows.
  uint64_t nanElements = 0;
  uint64_t firstNaN = 0;
  uint64_t nanChecked = 0;
  /// Elements of the guard region after the output that changed.
  uint64_t guardChanged = 0;
  /// Checked elements off by more than the mismatch tolerance, the checked
  /// rows and the columns that hold them (both sorted), and the worst one.
  uint64_t mismatches = 0;
  std::vector<uint64_t> mismatchRows;
  std::vector<uint64_t> mismatchCols;
  uint64_t worstRow = 0;
  uint64_t worstCol = 0;
  double worstGot = 0;
  double worstWant = 0;

  /// No NaN, an intact guard, and a relative error within the limit.
  bool passed() const;
};

/// Checks `output` (rows x cols words of `type`, bf16 or f16, row-major)
/// against `reference` (the rows `rows` of the exact result, row after row);
/// `guard` is what was read back from the guard region, which held 0xffff
/// words before the launch.
CheckReport checkOutput(runtime::ElementType type,
                        const std::vector<uint16_t> &output, uint64_t cols,
                        const std::vector<uint16_t> &guard,
                        const std::vector<uint64_t> &rows,
                        const std::vector<double> &reference);

/// The largest error of a value per output row (attention's log-sum-exp)
/// that passes: |got − want| ≤ kMaxRowValueError · max(1, |want|); where the
/// reference is −inf (a query row that sees no key) the value must be −inf.
inline constexpr double kMaxRowValueError = 1e-3;

/// The outcome of checking an f32 output of one value per row.
struct RowValueReport {
  uint64_t rows = 0;        ///< Values in the output.
  uint64_t checkedRows = 0; ///< Values compared with the reference.
  /// NaN values in the whole output (0xff poison left unwritten, or computed).
  uint64_t nanValues = 0;
  /// Values of the guard region after the output that changed.
  uint64_t guardChanged = 0;
  /// Checked values off by more than the limit, and the worst of them:
  /// max |got − want| / max(1, |want|) over the checked values.
  uint64_t mismatches = 0;
  double maxError = 0;
  uint64_t worstRow = 0;
  double worstGot = 0;
  double worstWant = 0;

  /// No NaN, an intact guard, every checked value within the limit.
  bool passed() const;
};

/// Checks `values` (one f32 per row) against `reference` (the values of the
/// rows `rows`); `guard` held 0xffffffff words before the launch.
RowValueReport checkRowValues(const std::vector<float> &values,
                              const std::vector<float> &guard,
                              const std::vector<uint64_t> &rows,
                              const std::vector<double> &reference);

/// How a failure report names an output row and its position in the CTA
/// tile: e.g. "row 300" and 300 % 128 for a GEMM, "head 3 row 17" and
/// 17 % 128 for attention.
struct RowNaming {
  std::function<std::string(uint64_t row)> name;
  std::function<uint64_t(uint64_t row)> tilePosition;
};

/// Lines that say what is wrong with a failed output (empty when it passed):
/// NaNs, guard writes, the error, the worst element, the rows, tile positions
/// and columns of the mismatches.
std::vector<std::string> describeFailure(const CheckReport &report,
                                         const RowNaming &naming);
/// The same for a per-row output called `what` ("lse").
std::vector<std::string> describeFailure(const RowValueReport &report,
                                         const RowNaming &naming,
                                         const std::string &what);

} // namespace fa4::runner

#endif // FA4_RUNNER_CHECK_H
