//===- Program.cpp - a kernel being written in the DSL --------------------===//
//
// The kernel's module and arguments, the values without operands (program
// ids, constant tiles, iotas, descriptors), loops and conditionals, and the
// locations, constants and verification every DSL function uses.
//
//===----------------------------------------------------------------------===//

#include "fa4/DSL/Program.h"

#include "Build.h"
#include "Tile/TileDialect.h"
#include "fa4/KernelFormat/LaunchRule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"

using namespace fa4::dsl;
namespace tile = mlir::fa4::tile;

using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::Value;

Program::Program(mlir::MLIRContext *context, StringRef name, SourceLoc loc)
    : builder(context) {
  context->loadDialect<tile::TileDialect, mlir::arith::ArithDialect,
                       mlir::func::FuncDialect, mlir::math::MathDialect,
                       mlir::scf::SCFDialect>();
  mlir::Location location = getLocation(loc);
  module = mlir::ModuleOp::create(builder, location);
  builder.setInsertionPointToEnd(module->getBody());
  kernel = mlir::func::FuncOp::create(builder, location, name,
                                      builder.getFunctionType({}, {}));
  kernel->setAttr("fa4.kernel", builder.getUnitAttr());
  builder.setInsertionPointToEnd(kernel.addEntryBlock());
}

Program::~Program() = default;

//===----------------------------------------------------------------------===//
// Locations, types, errors, constants
//===----------------------------------------------------------------------===//

mlir::Location Program::getLocation(SourceLoc loc) {
  return mlir::FileLineColLoc::get(getContext(), loc.file, loc.line,
                                   loc.column);
}

Type Program::getType(DType type) {
  switch (type) {
  case DType::BF16:
    return builder.getBF16Type();
  case DType::F16:
    return builder.getF16Type();
  case DType::F32:
    return builder.getF32Type();
  case DType::I32:
    return builder.getI32Type();
  case DType::I1:
    return builder.getI1Type();
  }
  llvm_unreachable("unknown DType");
}

mlir::InFlightDiagnostic Program::emitError(SourceLoc loc) {
  hadError = true;
  return mlir::emitError(getLocation(loc));
}

bool Program::verify(mlir::Operation *op) {
  if (succeeded(mlir::verify(op, /*verifyRecursively=*/false)))
    return true;
  hadError = true;
  return false;
}

Value Program::getConstant(mlir::TypedAttr value, SourceLoc loc) {
  if (Value known = constants.lookup(value))
    return known;
  mlir::OpBuilder::InsertionGuard guard(builder);
  if (lastConstant)
    builder.setInsertionPointAfter(lastConstant);
  else
    builder.setInsertionPointToStart(&kernel.getBody().front());
  auto constant = create<mlir::arith::ConstantOp>(loc, value);
  lastConstant = constant;
  constants[value] = constant;
  return constant;
}

Value Program::getIndex(const IndexArg &arg) {
  if (arg.isNumber)
    return getConstant(builder.getIndexAttr(arg.number), arg.loc);
  return arg.index.getValue();
}

//===----------------------------------------------------------------------===//
// Kernel arguments
//===----------------------------------------------------------------------===//

Value Program::addArgument(StringRef name, Type type, SourceLoc loc,
                           ArrayRef<mlir::NamedAttribute> extra) {
  unsigned position = kernel.getNumArguments();
  SmallVector<mlir::NamedAttribute> attrs = {
      builder.getNamedAttr("fa4.name", builder.getStringAttr(name))};
  attrs.append(extra.begin(), extra.end());
  if (mlir::failed(kernel.insertArgument(position, type,
                                         builder.getDictionaryAttr(attrs),
                                         getLocation(loc)))) {
    emitError(loc) << "cannot add kernel argument '" << name << "'";
    return {};
  }
  return kernel.getArgument(position);
}

/// The name and rank of the tensor kernel argument `name`: a descriptor, or
/// a pointer with a shape; nullopt for none.
static std::optional<std::pair<mlir::BlockArgument, int64_t>>
findTensorArgument(mlir::func::FuncOp kernel, StringRef name) {
  for (mlir::BlockArgument arg : kernel.getArguments()) {
    auto argName = kernel.getArgAttrOfType<mlir::StringAttr>(arg.getArgNumber(),
                                                             "fa4.name");
    if (!argName || argName.getValue() != name)
      continue;
    if (auto desc = llvm::dyn_cast<tile::DescriptorType>(arg.getType()))
      return std::pair{arg, int64_t(desc.getBlockShape().size())};
    if (auto shape = kernel.getArgAttrOfType<mlir::StringAttr>(
            arg.getArgNumber(), "fa4.shape"))
      return std::pair{
          arg, int64_t(fa4::runtime::splitRules(shape.getValue()).size())};
    return std::nullopt;
  }
  return std::nullopt;
}

bool Program::checkRule(const Extent &rule, StringRef what, SourceLoc loc) {
  // An extent of a failed handle: the failure was reported.
  if (rule.str().find('?') != std::string::npos)
    return false;
  fa4::runtime::Expected<fa4::runtime::LaunchRule> parsed =
      fa4::runtime::LaunchRule::parse(rule.str());
  if (!parsed.ok()) {
    emitError(loc) << what << ": " << parsed.status().message();
    return false;
  }
  for (const fa4::runtime::RuleRef &ref : parsed->refs()) {
    if (ref.kind != fa4::runtime::RuleRef::Name) {
      auto tensor = findTensorArgument(kernel, ref.name);
      if (!tensor) {
        emitError(loc) << what << " '" << rule.str() << "' reads '" << ref.str()
                       << "', but no tensor argument before it "
                       << "is named '" << ref.name << "'";
        return false;
      }
      if (int64_t(ref.index) >= tensor->second) {
        emitError(loc) << what << " '" << rule.str() << "' reads '" << ref.str()
                       << "' of a tensor of rank " << tensor->second;
        return false;
      }
      continue;
    }
    if (ref.name == fa4::runtime::kNumSmsName)
      continue;
    bool found = false;
    for (mlir::BlockArgument arg : kernel.getArguments()) {
      auto argName = kernel.getArgAttrOfType<mlir::StringAttr>(
          arg.getArgNumber(), "fa4.name");
      found |= argName && argName.getValue() == ref.name &&
               (arg.getType().isIndex() || arg.getType().isInteger(32));
    }
    if (!found) {
      emitError(loc) << what << " '" << rule.str() << "' reads '" << ref.name
                     << "', which is no index or i32 argument before it nor "
                     << "num_sms";
      return false;
    }
  }
  return true;
}

std::optional<mlir::NamedAttribute> Program::shapeAttr(ArrayRef<Extent> shape,
                                                       SourceLoc loc) {
  std::string text;
  for (const Extent &extent : shape) {
    if (!extent.isAny() && !checkRule(extent, "a shape extent", loc))
      return std::nullopt;
    text += (text.empty() ? "" : ", ") + extent.str();
  }
  return builder.getNamedAttr("fa4.shape", builder.getStringAttr(text));
}

Desc Program::desc(StringRef name, ArrayRef<int64_t> blockShape, DType type,
                   ArrayRef<Extent> shape, SourceLoc loc) {
  auto descType = tile::DescriptorType::getChecked(
      [&] { return emitError(loc); }, getContext(), blockShape, getType(type));
  if (!descType)
    return {};
  SmallVector<mlir::NamedAttribute> attrs = {
      builder.getNamedAttr("fa4.access", builder.getStringAttr("input"))};
  if (!shape.empty()) {
    if (shape.size() != blockShape.size()) {
      emitError(loc) << "descriptor '" << name << "' has blocks of rank "
                     << blockShape.size() << " but a shape of " << shape.size()
                     << " extents";
      return {};
    }
    std::optional<mlir::NamedAttribute> attr = shapeAttr(shape, loc);
    if (!attr)
      return {};
    attrs.push_back(*attr);
  }
  return {this, addArgument(name, descType, loc, attrs)};
}

Ptr Program::ptr(StringRef name, DType type, ArrayRef<Extent> shape,
                 SourceLoc loc) {
  SmallVector<mlir::NamedAttribute> attrs;
  if (!shape.empty()) {
    std::optional<mlir::NamedAttribute> attr = shapeAttr(shape, loc);
    if (!attr)
      return {};
    attrs = {
        *attr,
        builder.getNamedAttr("fa4.access", builder.getStringAttr("output")),
        builder.getNamedAttr("fa4.element_type",
                             mlir::TypeAttr::get(getType(type)))};
  }
  return {this,
          addArgument(name, tile::PointerType::get(getContext(), getType(type)),
                      loc, attrs)};
}

Index Program::index(StringRef name, SourceLoc loc) {
  return {this, addArgument(name, builder.getIndexType(), loc)};
}

Index Program::index(StringRef name, const Extent &value, SourceLoc loc) {
  if (!checkRule(value, "the value of '" + name.str() + "'", loc))
    return {};
  return {this,
          addArgument(name, builder.getIndexType(), loc,
                      {builder.getNamedAttr(
                          "fa4.value", builder.getStringAttr(value.str()))})};
}

Scalar Program::f32(StringRef name, SourceLoc loc) {
  return {this, addArgument(name, builder.getF32Type(), loc)};
}

Scalar Program::i32(StringRef name, SourceLoc loc) {
  return {this, addArgument(name, builder.getI32Type(), loc)};
}

void Program::grid(ArrayRef<Extent> dims, SourceLoc loc) {
  if (dims.empty() || dims.size() > 3) {
    emitError(loc) << "a grid has one to three dimensions, not " << dims.size();
    return;
  }
  if (kernel->hasAttr("fa4.grid")) {
    emitError(loc) << "the grid is declared twice";
    return;
  }
  std::string text;
  for (size_t d = 0; d < 3; ++d) {
    Extent extent = d < dims.size() ? dims[d] : Extent(1);
    if (!checkRule(extent, std::string("grid ") + "xyz"[d], loc))
      return;
    text += (d ? ", " : "") + extent.str();
  }
  kernel->setAttr("fa4.grid", builder.getStringAttr(text));
}

void Program::gridGroup(const Extent &size, SourceLoc loc) {
  if (kernel->hasAttr("fa4.grid_group")) {
    emitError(loc) << "the grid group is declared twice";
    return;
  }
  if (checkRule(size, "the grid group", loc))
    kernel->setAttr("fa4.grid_group", builder.getStringAttr(size.str()));
}

void Program::require(const Extent &condition, SourceLoc loc) {
  if (checkRule(condition, "the requirement", loc))
    requirements.push_back(builder.getStringAttr(condition.str()));
}

void Program::programmaticLaunch(SourceLoc loc) {
  if (kernel->hasAttr("fa4.programmatic_launch")) {
    emitError(loc) << "the programmatic launch is declared twice";
    return;
  }
  kernel->setAttr("fa4.programmatic_launch", builder.getUnitAttr());
}

/// The kernel-file name of `handle`, an argument of the kernel; reports at
/// `loc` and gives nothing otherwise.
static std::optional<std::string>
argumentName(const detail::Handle &handle, const char *what, SourceLoc loc) {
  if (!handle.isValid())
    return std::nullopt;
  auto arg = llvm::dyn_cast<mlir::BlockArgument>(handle.getValue());
  auto kernel =
      arg ? llvm::dyn_cast<mlir::func::FuncOp>(arg.getOwner()->getParentOp())
          : mlir::func::FuncOp();
  auto name = kernel ? kernel.getArgAttrOfType<mlir::StringAttr>(
                           arg.getArgNumber(), "fa4.name")
                     : mlir::StringAttr();
  if (!name) {
    handle.getProgram()->emitError(loc)
        << "the " << what << " of a value that is not a kernel argument";
    return std::nullopt;
  }
  return name.getValue().str();
}

/// The launch rule `NAME.FIELDd` of tensor argument `handle` of rank `rank`.
static Extent tensorExtent(const detail::Handle &handle, const char *field,
                           int64_t d, int64_t rank, SourceLoc loc) {
  std::optional<std::string> name = argumentName(handle, field, loc);
  if (!name)
    return Extent::named("?");
  if (d < 0 || d >= rank) {
    handle.getProgram()->emitError(loc) << field << " " << d << " of '" << *name
                                        << "', a tensor of rank " << rank;
    return Extent::named("?");
  }
  return Extent::named(*name + "." + field + std::to_string(d));
}

Extent Desc::dim(int64_t d, SourceLoc loc) const {
  return tensorExtent(*this, "dim", d,
                      isValid() ? int64_t(getBlockShape().size()) : 0, loc);
}

Extent Desc::stride(int64_t d, SourceLoc loc) const {
  return tensorExtent(*this, "stride", d,
                      isValid() ? int64_t(getBlockShape().size()) : 0, loc);
}

/// The rank of the tensor pointer argument `ptr` points to: the length of
/// its shape, 0 without one.
static int64_t pointerRank(const Ptr &ptr) {
  int64_t rank = 0;
  if (ptr.isValid())
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(ptr.getValue()))
      if (auto kernel =
              llvm::dyn_cast<mlir::func::FuncOp>(arg.getOwner()->getParentOp()))
        if (auto shape = kernel.getArgAttrOfType<mlir::StringAttr>(
                arg.getArgNumber(), "fa4.shape"))
          rank = int64_t(fa4::runtime::splitRules(shape.getValue()).size());
  return rank;
}

Extent Ptr::dim(int64_t d, SourceLoc loc) const {
  return tensorExtent(*this, "dim", d, pointerRank(*this), loc);
}

Extent Ptr::stride(int64_t d, SourceLoc loc) const {
  return tensorExtent(*this, "stride", d, pointerRank(*this), loc);
}

//===----------------------------------------------------------------------===//
// Values without operands
//===----------------------------------------------------------------------===//

Index Program::programId(int64_t dim, SourceLoc loc) {
  return {this, create<tile::ProgramIdOp>(loc, builder.getIndexType(),
                                          builder.getI64IntegerAttr(dim))};
}

Index Program::numPrograms(int64_t dim, SourceLoc loc) {
  return {this, create<tile::NumProgramsOp>(loc, builder.getIndexType(),
                                            builder.getI64IntegerAttr(dim))};
}

Tile Program::full(ArrayRef<int64_t> shape, double value, DType type,
                   SourceLoc loc) {
  if (!detail::checkShape(*this, shape, loc))
    return {};
  return {this, detail::buildNumber(*this, value,
                                    RankedTensorType::get(shape, getType(type)),
                                    loc)};
}

Tile Program::zeros(ArrayRef<int64_t> shape, DType type, SourceLoc loc) {
  return full(shape, 0, type, loc);
}

Tile Program::iota(ArrayRef<int64_t> shape, int64_t axis, SourceLoc loc) {
  if (!detail::checkShape(*this, shape, loc))
    return {};
  auto type = RankedTensorType::get(shape, builder.getI32Type());
  return {this,
          create<tile::IotaOp>(loc, type, builder.getI64IntegerAttr(axis))};
}

Desc Program::makeDesc(const Ptr &base, ArrayRef<IndexArg> shape,
                       ArrayRef<IndexArg> strides, ArrayRef<int64_t> blockShape,
                       SourceLoc loc) {
  if (!base.isValid())
    return {};
  SmallVector<Value> sizes, steps;
  for (const IndexArg &size : shape)
    sizes.push_back(getIndex(size));
  for (const IndexArg &stride : strides)
    steps.push_back(getIndex(stride));
  if (llvm::is_contained(sizes, Value()) || llvm::is_contained(steps, Value()))
    return {};
  auto pointer = llvm::cast<tile::PointerType>(base.getValue().getType());
  auto type = tile::DescriptorType::getChecked([&] { return emitError(loc); },
                                               getContext(), blockShape,
                                               pointer.getElementType());
  if (!type)
    return {};
  return {this,
          create<tile::MakeDescOp>(loc, type, base.getValue(), sizes, steps)};
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// The values of `tiles`, or nothing if one is invalid.
static std::optional<SmallVector<Value>> getValues(ArrayRef<Tile> tiles) {
  SmallVector<Value> values;
  for (const Tile &tile : tiles) {
    if (!tile.isValid())
      return std::nullopt;
    values.push_back(tile.getValue());
  }
  return values;
}

SmallVector<Tile> Program::forLoop(
    IndexArg lo, IndexArg hi, IndexArg step, ArrayRef<Tile> init,
    llvm::function_ref<SmallVector<Tile>(const Index &, ArrayRef<Tile>)> body,
    SourceLoc loc) {
  SmallVector<Tile> results(init.size());
  buildFor(
      lo, hi, step, init, results,
      [&](const Index &iv, ArrayRef<Tile> carried,
          llvm::MutableArrayRef<Tile> next) {
        SmallVector<Tile> yielded = body(iv, carried);
        if (yielded.size() != next.size()) {
          emitError(loc) << "the loop body gives " << yielded.size()
                         << (yielded.size() == 1 ? " tile" : " tiles")
                         << " for " << next.size() << " carried tiles";
          return;
        }
        llvm::copy(yielded, next.begin());
      },
      loc);
  return results;
}

void Program::buildFor(const IndexArg &lo, const IndexArg &hi,
                       const IndexArg &step, ArrayRef<Tile> init,
                       llvm::MutableArrayRef<Tile> results, LoopBody body,
                       SourceLoc loc) {
  Value lower = getIndex(lo), upper = getIndex(hi), stride = getIndex(step);
  std::optional<SmallVector<Value>> inits = getValues(init);
  if (!lower || !upper || !stride || !inits)
    return;
  // The body is built in the loop once the loop is in the kernel, so that
  // the ops in it verify as they are built.
  mlir::Location location = getLocation(loc);
  auto loop =
      mlir::scf::ForOp::create(builder, location, lower, upper, stride, *inits);
  // A loop without carried tiles comes with its terminator; the body's own
  // goes last.
  if (mlir::Operation *implicit = loop.getBody()->mightHaveTerminator()
                                      ? loop.getBody()->getTerminator()
                                      : nullptr)
    implicit->erase();
  {
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(loop.getBody());
    SmallVector<Tile> carried, next(init.size());
    for (Value arg : loop.getRegionIterArgs())
      carried.push_back({this, arg});
    body({this, loop.getInductionVar()}, carried, next);
    // A carried tile the body failed to compute was reported; it stays as
    // it was.
    SmallVector<Value> yielded;
    for (auto [tile, arg] : llvm::zip(next, loop.getRegionIterArgs())) {
      if (tile.isValid() && tile.getType() != arg.getType())
        emitError(loc) << "the loop body gives " << tile.getType()
                       << " for carried tile #" << yielded.size() << " of type "
                       << arg.getType();
      yielded.push_back(tile.isValid() && tile.getType() == arg.getType()
                            ? tile.getValue()
                            : Value(arg));
    }
    mlir::scf::YieldOp::create(builder, location, yielded);
  }
  verify(loop);
  for (auto [index, result] : llvm::enumerate(loop.getResults()))
    results[index] = {this, result};
}

void Program::buildIf(const Bool &cond, Branch thenBody, Branch elseBody,
                      llvm::MutableArrayRef<Tile> results, SourceLoc loc) {
  if (!cond.isValid())
    return;
  // The branches give the types of the scf.if: they are built in one
  // without results, in the kernel so that their ops verify as they are
  // built, and moved to the scf.if of their types.
  mlir::Location location = getLocation(loc);
  auto untyped = mlir::scf::IfOp::create(builder, location, mlir::TypeRange(),
                                         cond.getValue(),
                                         /*addThenBlock=*/false,
                                         /*addElseBlock=*/false);
  auto buildBranch = [&](mlir::Region &region, Branch branch) {
    SmallVector<Tile> tiles(results.size());
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&region.emplaceBlock());
    branch(tiles);
    return tiles;
  };
  SmallVector<Tile> thenTiles = buildBranch(untyped.getThenRegion(), thenBody);
  SmallVector<Tile> elseTiles = buildBranch(untyped.getElseRegion(), elseBody);
  std::optional<SmallVector<Value>> thenValues = getValues(thenTiles);
  std::optional<SmallVector<Value>> elseValues = getValues(elseTiles);
  bool typed = thenValues && elseValues;
  for (auto [index, pair] : llvm::enumerate(llvm::zip(thenTiles, elseTiles))) {
    auto [thenTile, elseTile] = pair;
    if (typed && thenTile.getType() != elseTile.getType()) {
      emitError(loc) << "the branches give " << thenTile.getType() << " and "
                     << elseTile.getType() << " for result #" << index;
      typed = false;
    }
  }
  mlir::OpBuilder::InsertionGuard guard(builder);
  if (!typed) {
    // The error was reported; the conditional stays without results.
    for (mlir::Region &region : untyped->getRegions()) {
      builder.setInsertionPointToEnd(&region.front());
      mlir::scf::YieldOp::create(builder, location);
    }
    return;
  }
  builder.setInsertionPoint(untyped);
  auto branch = mlir::scf::IfOp::create(
      builder, location, mlir::ValueRange(*thenValues).getTypes(),
      cond.getValue(), /*addThenBlock=*/false, /*addElseBlock=*/false);
  branch.getThenRegion().takeBody(untyped.getThenRegion());
  branch.getElseRegion().takeBody(untyped.getElseRegion());
  untyped.erase();
  builder.setInsertionPointToEnd(branch.thenBlock());
  mlir::scf::YieldOp::create(builder, location, *thenValues);
  builder.setInsertionPointToEnd(branch.elseBlock());
  mlir::scf::YieldOp::create(builder, location, *elseValues);
  verify(branch);
  for (auto [index, result] : llvm::enumerate(branch.getResults()))
    results[index] = {this, result};
}

//===----------------------------------------------------------------------===//
// The result
//===----------------------------------------------------------------------===//

mlir::OwningOpRef<mlir::ModuleOp> Program::finish(SourceLoc loc) {
  if (!module)
    return {};
  builder.setInsertionPointToEnd(&kernel.getBody().front());
  create<mlir::func::ReturnOp>(loc);
  // An atomic add reads what it adds to.
  auto adds = [](mlir::Operation *user) {
    auto store = llvm::dyn_cast<tile::StoreOp>(user);
    return store && store.getAdd();
  };
  // A descriptor the kernel stores through is an output (an inout when it
  // also loads through it or adds into it).
  for (mlir::BlockArgument arg : kernel.getArguments()) {
    if (!llvm::isa<tile::DescriptorType>(arg.getType()))
      continue;
    bool reads = false, writes = false;
    for (mlir::Operation *user : arg.getUsers()) {
      reads |= llvm::isa<tile::LoadOp>(user) || adds(user);
      writes |= llvm::isa<tile::StoreOp>(user);
    }
    if (writes)
      kernel.setArgAttr(arg.getArgNumber(), "fa4.access",
                        builder.getStringAttr(reads ? "inout" : "output"));
  }
  // A pointer to a tensor that the kernel only reads through (scalar reads
  // such as cu_seqlens[b], vector loads through a descriptor) is an input;
  // one it also writes, both, as is one it adds into through a descriptor.
  for (mlir::BlockArgument arg : kernel.getArguments()) {
    if (!kernel.getArgAttr(arg.getArgNumber(), "fa4.access") ||
        !llvm::isa<tile::PointerType>(arg.getType()))
      continue;
    bool reads = false, writes = false;
    for (mlir::Operation *user : arg.getUsers()) {
      if (llvm::isa<tile::LoadScalarOp>(user)) {
        reads = true;
        continue;
      }
      for (mlir::Operation *access : user->getUsers()) {
        reads |= llvm::isa<tile::LoadOp>(access) || adds(access);
        writes |= llvm::isa<tile::StoreOp>(access);
      }
    }
    if (reads)
      kernel.setArgAttr(arg.getArgNumber(), "fa4.access",
                        builder.getStringAttr(writes ? "inout" : "input"));
  }
  if (!requirements.empty())
    kernel->setAttr("fa4.require", builder.getArrayAttr(requirements));
  mlir::OwningOpRef<mlir::ModuleOp> result = std::move(module);
  if (hadError || mlir::failed(mlir::verify(*result)))
    return {};
  return result;
}
