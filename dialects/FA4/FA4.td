//===- FA4.td - the whole fa4 dialect ----------------------*- tablegen -*-===//
//
// Entry point for TableGen: the dialect, its enums, attributes, types and ops.
//
//===----------------------------------------------------------------------===//

#ifndef FA4_TD
#define FA4_TD

include "FA4/FA4Ops.td"

#endif // FA4_TD
