#===- FA4Package.cmake - the installed CMake package ----------*- cmake -*-===#
#
# Installs the exported targets and a package config so that an out-of-tree
# project can `find_package(FA4)` and link FA4::FA4Dialect, FA4::TileDialect,
# FA4::FA4DSL, FA4::FA4Transforms, FA4::FA4InitAll, FA4::FA4Target,
# FA4::FA4KernelFormat, FA4::FA4Runtime and FA4::FA4Runner.
#
#===----------------------------------------------------------------------===#

include(CMakePackageConfigHelpers)

install(EXPORT FA4Targets
  NAMESPACE FA4::
  DESTINATION ${FA4_INSTALL_PACKAGE_DIR})

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/FA4Config.cmake.in
  ${PROJECT_BINARY_DIR}/FA4Config.cmake
  INSTALL_DESTINATION ${FA4_INSTALL_PACKAGE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)

write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/FA4ConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)

install(FILES
  ${PROJECT_SOURCE_DIR}/cmake/FA4StaticLLVM.cmake
  ${PROJECT_BINARY_DIR}/FA4Config.cmake
  ${PROJECT_BINARY_DIR}/FA4ConfigVersion.cmake
  DESTINATION ${FA4_INSTALL_PACKAGE_DIR})
