#===- FA4StaticLLVM.cmake - link LLVM statically --------------*- cmake -*-===#
#
# With -DFA4_STATIC_LLVM=ON the tools link LLVM's static component libraries
# instead of the shared libLLVM that Debian's MLIR targets name, and libstdc++
# statically, so that fa4-run carries the whole compiler to a GPU machine that
# has no LLVM (glibc stays shared: fa4-run opens libcuda at run time). Every
# MLIR target's "LLVM" link entry becomes the component libraries; z3, zlib
# and zstd become what a static link can use.
#
#===----------------------------------------------------------------------===#

# The components MLIR's libraries and fa4's back end use; each brings the
# components it depends on.
llvm_map_components_to_libnames(fa4_llvm_component_libs
  Analysis AsmParser BitReader BitWriter Core Demangle FrontendOffloading
  FrontendOpenMP IRReader Linker MC NVPTXCodeGen NVPTXDesc NVPTXInfo Passes
  Support Target TargetParser TransformUtils)
foreach(target ${MLIR_EXPORTED_TARGETS})
  if(NOT TARGET ${target})
    continue()
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    continue()
  endif()
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  if(libs AND "LLVM" IN_LIST libs)
    list(REMOVE_ITEM libs LLVM)
    list(APPEND libs ${fa4_llvm_component_libs})
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${libs}")
  endif()
endforeach()

find_library(FA4_LIBZ_STATIC libz.a REQUIRED)
find_library(FA4_LIBZSTD_STATIC libzstd.a REQUIRED)
get_target_property(support_libs LLVMSupport INTERFACE_LINK_LIBRARIES)
list(FILTER support_libs EXCLUDE REGEX "z3")
list(TRANSFORM support_libs REPLACE "^ZLIB::ZLIB$" "${FA4_LIBZ_STATIC}")
list(TRANSFORM support_libs REPLACE "^zstd::libzstd_shared$" "${FA4_LIBZSTD_STATIC}")
set_target_properties(LLVMSupport PROPERTIES INTERFACE_LINK_LIBRARIES "${support_libs}")
