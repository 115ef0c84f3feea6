//===- HangDiagnosis.cpp - bounded barrier waits that report a hang -------===//
//
// For kernels planned with `debug_hangs`: the fa4-instrument-hangs pass,
// which numbers the waits that can hang and records what each one is, and
// the pieces convert-fa4-to-nvvm builds from that: the module's globals (the
// report's address, the claim word, the site table), the report function,
// the bounded wait loop, and the mbarriers that stand in for named barriers
// (a `bar.sync` cannot be bounded; an mbarrier wait can). The record's
// layout and the table's format are fa4/KernelFormat/HangReport.h's, which the
// runtime reads.
//
//===----------------------------------------------------------------------===//

#include "fa4/Conversion/FA4ToNVVM.h"

#include "Common.h"
#include "fa4/KernelFormat/HangReport.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/Path.h"

namespace mlir::fa4 {
#define GEN_PASS_DEF_FA4INSTRUMENTHANGS
#include "fa4/Conversion/Passes.h.inc"
} // namespace mlir::fa4

using namespace mlir;
using namespace mlir::fa4;
using namespace mlir::fa4::detail;
namespace rt = ::fa4::runtime;

/// The report function the bounded waits call.
static constexpr StringLiteral kReportFunction = "fa4_report_hang";

/// `file:line` of the first file location in `loc`, without the directory.
static std::string describeLocation(Location loc) {
  std::string text = "unknown";
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      text = (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
              Twine(file.getLine()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text;
}

/// The barrier a wait op waits on, in words.
static std::string describeBarrier(Operation *op) {
  auto pipelineWait = [](PipelineType type, uint64_t qk, bool empty) {
    std::string text = ("the " + stringifyPipelineKind(type.getKind()) +
                        " pipeline's " + (empty ? "empty" : "full") +
                        " barrier")
                           .str();
    if (type.getQkStages() > 1)
      text += " of qk stage " + std::to_string(qk);
    return text;
  };
  if (auto acquire = dyn_cast<ProducerAcquireOp>(op))
    return pipelineWait(acquire.getPipeline().getType(), acquire.getQk(),
                        /*empty=*/true);
  if (auto wait = dyn_cast<ConsumerWaitOp>(op))
    return pipelineWait(wait.getPipeline().getType(), wait.getQk(),
                        /*empty=*/false);
  if (isa<TmaStoreOp>(op))
    return "the epilogue barrier of a warpgroup's TMA store (named barrier " +
           std::to_string(kEpilogueBarrierId) + " + warpgroup; 128 threads)";
  auto sync = cast<NamedBarrierSyncOp>(op);
  return "named barrier " + std::to_string(sync.getId()) + " (" +
         std::to_string(sync.getThreads()) + " threads)";
}

bool mlir::fa4::detail::plannedWithHangDiagnosis(Operation *op) {
  auto function = isa<FunctionOpInterface>(op)
                      ? op
                      : op->getParentOfType<FunctionOpInterface>();
  if (!function)
    return false;
  auto config =
      function->getAttrOfType<ConfigAttr>(FA4Dialect::getConfigAttrName());
  return config && config.getDebugHangs();
}

namespace {
struct InstrumentHangsPass
    : public mlir::fa4::impl::FA4InstrumentHangsBase<InstrumentHangsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder builder(&getContext());
    SmallVector<Attribute> sites;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (!plannedWithHangDiagnosis(function))
        continue;
      // Each role's first thread, in the order fa4-lower-warp-roles lays
      // the roles out.
      llvm::DenseMap<Operation *, int64_t> firstThread;
      function.walk([&](WarpSpecializeOp roles) {
        int64_t start = 0;
        for (RoleOp role : roles.getBody().front().getOps<RoleOp>()) {
          firstThread[role] = start;
          start += role.getWarps() * 32;
        }
      });
      function.walk([&](Operation *op) {
        if (!isa<ProducerAcquireOp, ConsumerWaitOp, NamedBarrierSyncOp,
                 TmaStoreOp>(op))
          return;
        rt::HangSite site;
        site.role = "kernel";
        site.firstThread = 0;
        if (auto role = op->getParentOfType<RoleOp>()) {
          site.role = stringifyRoleKind(role.getKind()).str();
          site.firstThread = static_cast<uint32_t>(firstThread.lookup(role));
        }
        site.barrier = describeBarrier(op);
        site.hasStage = !isa<NamedBarrierSyncOp, TmaStoreOp>(op);
        site.location = describeLocation(op->getLoc());
        op->setAttr(kHangSiteAttrName,
                    builder.getI64IntegerAttr(int64_t(sites.size())));
        sites.push_back(builder.getStringAttr(rt::formatHangSite(site)));
      });
    }
    if (!sites.empty())
      module->setAttr(kHangSitesAttrName, builder.getArrayAttr(sites));
  }
};
} // namespace

/// `ptr + 4 * word` for the record's u32 words.
static Value recordWord(ImplicitLocOpBuilder &b, Value record, unsigned word) {
  return offsetPtr(b, record, int64_t(4 * word));
}

/// The report function: the first thread to call it writes the record and
/// traps; the others sleep until the trap ends the grid.
static void buildReportFunction(ModuleOp module) {
  MLIRContext *context = module.getContext();
  ImplicitLocOpBuilder b(module.getLoc(), context);
  b.setInsertionPointToEnd(module.getBody());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto voidType = LLVM::LLVMVoidType::get(context);
  auto function = LLVM::LLVMFuncOp::create(
      b, kReportFunction,
      LLVM::LLVMFunctionType::get(voidType, {i32, i32, i32, i64}),
      LLVM::Linkage::Internal);
  function.setNoInline(true);
  Block *entry = function.addEntryBlock(b);
  Block *spin = b.createBlock(&function.getBody());
  Block *write = b.createBlock(&function.getBody());
  Block *store = b.createBlock(&function.getBody());
  Block *trap = b.createBlock(&function.getBody());
  auto global = LLVM::LLVMPointerType::get(context, 1);

  b.setInsertionPointToStart(entry);
  Value claim = LLVM::AddressOfOp::create(b, global, rt::kHangClaimGlobal);
  Value previous =
      LLVM::AtomicRMWOp::create(b, LLVM::AtomicBinOp::xchg, claim,
                                i32Const(b, 1), LLVM::AtomicOrdering::monotonic);
  Value first =
      LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::eq, previous, i32Const(b, 0));
  LLVM::CondBrOp::create(b, first, write, spin);

  b.setInsertionPointToStart(spin);
  NVVM::NanosleepOp::create(b, i32Const(b, 1000000));
  LLVM::BrOp::create(b, spin);

  b.setInsertionPointToStart(write);
  Value slot = LLVM::AddressOfOp::create(b, global, rt::kHangReportGlobal);
  Value address = LLVM::LoadOp::create(b, i64, slot, /*alignment=*/8,
                                       /*isVolatile=*/true);
  Value none =
      LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::eq, address, i64Const(b, 0));
  LLVM::CondBrOp::create(b, none, trap, store);

  b.setInsertionPointToStart(store);
  Value record =
      LLVM::IntToPtrOp::create(b, LLVM::LLVMPointerType::get(context), address);
  auto put = [&](unsigned word, Value value) {
    LLVM::StoreOp::create(b, value, recordWord(b, record, word),
                          /*alignment=*/4, /*isVolatile=*/true);
  };
  put(rt::kHangSiteWord, entry->getArgument(0));
  put(rt::kHangStageWord, entry->getArgument(1));
  put(rt::kHangPhaseWord, entry->getArgument(2));
  put(rt::kHangBlockXWord, NVVM::BlockIdXOp::create(b, i32));
  put(rt::kHangBlockYWord, NVVM::BlockIdYOp::create(b, i32));
  put(rt::kHangBlockZWord, NVVM::BlockIdZOp::create(b, i32));
  put(rt::kHangThreadWord, threadId(b));
  Value cycles = entry->getArgument(3);
  put(rt::kHangCyclesLowWord, LLVM::TruncOp::create(b, i32, cycles));
  put(rt::kHangCyclesHighWord,
      LLVM::TruncOp::create(
          b, i32, LLVM::LShrOp::create(b, cycles, i64Const(b, 32))));
  // The fields reach host memory before the magic that says they are there.
  LLVM::FenceOp::create(b, LLVM::AtomicOrdering::seq_cst);
  put(rt::kHangMagicWord, i32Const(b, rt::kHangMagic));
  LLVM::FenceOp::create(b, LLVM::AtomicOrdering::seq_cst);
  LLVM::BrOp::create(b, trap);

  b.setInsertionPointToStart(trap);
  LLVM::Trap::create(b);
  LLVM::UnreachableOp::create(b);
}

LogicalResult mlir::fa4::detail::prepareHangDiagnosis(ModuleOp module) {
  auto sites = module->getAttrOfType<ArrayAttr>(kHangSitesAttrName);
  bool planned = false;
  module.walk([&](func::FuncOp function) {
    planned |= plannedWithHangDiagnosis(function);
  });
  if (!planned)
    return success();
  if (module.lookupSymbol(rt::kHangReportGlobal) ||
      module.lookupSymbol(rt::kHangClaimGlobal) ||
      module.lookupSymbol(rt::kHangSitesGlobal) ||
      module.lookupSymbol(kReportFunction))
    return module.emitError()
           << "already defines one of the symbols hang diagnosis adds ("
           << rt::kHangReportGlobal << ", " << rt::kHangClaimGlobal << ", "
           << rt::kHangSitesGlobal << ", " << kReportFunction << ")";

  MLIRContext *context = module.getContext();
  ImplicitLocOpBuilder b(module.getLoc(), context);
  b.setInsertionPointToStart(module.getBody());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  LLVM::GlobalOp::create(b, i64, /*isConstant=*/false, LLVM::Linkage::External,
                         rt::kHangReportGlobal, b.getI64IntegerAttr(0),
                         /*alignment=*/8, /*addrSpace=*/1);
  LLVM::GlobalOp::create(b, i32, /*isConstant=*/false, LLVM::Linkage::External,
                         rt::kHangClaimGlobal, b.getI32IntegerAttr(0),
                         /*alignment=*/4, /*addrSpace=*/1);
  std::string table;
  if (sites)
    for (Attribute site : sites)
      table += cast<StringAttr>(site).getValue().str() + '\0';
  table += '\0';
  LLVM::GlobalOp::create(
      b, LLVM::LLVMArrayType::get(b.getI8Type(), table.size()),
      /*isConstant=*/true, LLVM::Linkage::External, rt::kHangSitesGlobal,
      b.getStringAttr(table), /*alignment=*/1, /*addrSpace=*/1);
  buildReportFunction(module);
  // The table lives on in the global.
  module->removeAttr(kHangSitesAttrName);
  return success();
}

/// The stand-ins' offset fa4-allocate-shared-memory gave `function`.
static std::optional<int64_t> standInOffset(Operation *function) {
  if (auto offset =
          function->getAttrOfType<IntegerAttr>(kNamedBarrierOffsetAttrName))
    return offset.getInt();
  return std::nullopt;
}

/// The stand-in of barrier `id` at `offset` in the dynamic shared memory.
static Value standInPtr(ImplicitLocOpBuilder &b, int64_t offset, int64_t id) {
  return dynamicSmemAt(b, offset + 8 * id);
}

FailureOr<Value> mlir::fa4::detail::namedBarrierPtr(ImplicitLocOpBuilder &b,
                                                    Operation *op, Value id) {
  FailureOr<Value> first = namedBarrierPtr(b, op, 0);
  if (failed(first))
    return failure();
  return offsetPtr(b, *first, LLVM::MulOp::create(b, id, i32Const(b, 8)));
}

FailureOr<Value> mlir::fa4::detail::namedBarrierPtr(ImplicitLocOpBuilder &b,
                                                    Operation *op,
                                                    int64_t id) {
  auto function = op->getParentOfType<FunctionOpInterface>();
  std::optional<int64_t> offset =
      function ? standInOffset(function) : std::nullopt;
  if (!offset)
    return op->emitOpError()
           << "is in a kernel built to diagnose hangs whose named barriers "
              "have no stand-in mbarriers ('"
           << kNamedBarrierOffsetAttrName
           << "'); run fa4-allocate-shared-memory first (docs/Rationale.md, "
              "\"Shared memory allocated\")";
  return standInPtr(b, *offset, id);
}

FailureOr<NamedBarrierCounts>
mlir::fa4::detail::collectNamedBarriers(FunctionOpInterface function) {
  NamedBarrierCounts counts;
  WalkResult result = function->walk([&](Operation *op) {
    int64_t id, threads;
    if (auto sync = dyn_cast<NamedBarrierSyncOp>(op)) {
      id = sync.getId();
      threads = sync.getThreads();
    } else if (auto arrive = dyn_cast<NamedBarrierArriveOp>(op)) {
      id = arrive.getId();
      threads = arrive.getThreads();
    } else if (isa<TmaStoreOp>(op)) {
      // The epilogue barrier of each consumer warpgroup (one per Q tile).
      ConfigAttr config = lookupConfig(op);
      int64_t groups = config ? config.getQTiles() : 1;
      for (int64_t w = 0; w < groups; ++w)
        counts.try_emplace(kEpilogueBarrierId + w, 128);
      return WalkResult::advance();
    } else {
      return WalkResult::advance();
    }
    auto [it, inserted] = counts.try_emplace(id, threads);
    if (!inserted && it->second != threads) {
      op->emitOpError() << "uses named barrier " << id << " with " << threads
                        << " threads, where another op of the kernel uses it "
                           "with "
                        << it->second
                        << "; a barrier has one thread count";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return counts;
}

void mlir::fa4::detail::initNamedBarriers(LLVM::LLVMFuncOp kernel,
                                          const NamedBarrierCounts &counts) {
  std::optional<int64_t> offset = standInOffset(kernel);
  if (counts.empty() || !offset)
    return;
  ImplicitLocOpBuilder b(kernel.getLoc(), kernel.getContext());
  b.setInsertionPointToStart(&kernel.getBody().front());
  Value leader = LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::eq, threadId(b),
                                      i32Const(b, 0));
  for (auto [id, threads] : counts)
    NVVM::MBarrierInitOp::create(b, standInPtr(b, *offset, id),
                                 i32Const(b, threads), leader);
  NVVM::FenceMbarrierInitOp::create(b);
  NVVM::BarrierOp::create(b);
}

void mlir::fa4::detail::emitBoundedWait(
    ConversionPatternRewriter &rewriter, Location loc,
    std::optional<int64_t> site, Value stage, Value phase,
    function_ref<Value(ImplicitLocOpBuilder &)> tryWait) {
  Block *current = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(current, rewriter.getInsertionPoint());
  Block *loop = rewriter.createBlock(after);
  Block *check = site ? rewriter.createBlock(after) : nullptr;
  Block *report = site ? rewriter.createBlock(after) : nullptr;
  ImplicitLocOpBuilder b(loc, rewriter);
  Type i64 = b.getI64Type();

  b.setInsertionPointToEnd(current);
  Value start = site ? NVVM::Clock64Op::create(b, i64) : Value();
  LLVM::BrOp::create(b, loop);

  b.setInsertionPointToStart(loop);
  Value done = tryWait(b);
  LLVM::CondBrOp::create(b, done, after, site ? check : loop);
  if (site) {
    b.setInsertionPointToStart(check);
    Value waited = LLVM::SubOp::create(b, NVVM::Clock64Op::create(b, i64), start);
    Value over = LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::uge, waited,
                                      i64Const(b, int64_t(rt::kHangCycles)));
    LLVM::CondBrOp::create(b, over, report, loop);

    b.setInsertionPointToStart(report);
    LLVM::CallOp::create(
        b, TypeRange(), b.getStringAttr(kReportFunction),
        ValueRange{i32Const(b, *site), stage ? stage : i32Const(b, 0),
                   phase ? phase : i32Const(b, 0), waited});
    LLVM::UnreachableOp::create(b);
  }
  rewriter.setInsertionPointToStart(after);
}

std::optional<int64_t> mlir::fa4::detail::hangSite(Operation *op) {
  if (auto site = op->getAttrOfType<IntegerAttr>(kHangSiteAttrName))
    return site.getInt();
  return std::nullopt;
}
