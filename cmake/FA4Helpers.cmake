#===- FA4Helpers.cmake - how fa4 libraries are declared -------*- cmake -*-===#
#
# One way to declare an fa4 library: a static library with an FA4:: alias,
# the project's include directories, an explicit link list, and an install
# rule into the exported FA4Targets set that `find_package(FA4)` imports.
#
#===----------------------------------------------------------------------===#

# fa4_add_library(name sources... [DEPENDS targets...] [LINK libraries...])
function(fa4_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  add_library(FA4::${name} ALIAS ${name})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/dialects>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/dialects>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/fa4>)
  # MLIR's imported targets carry no include directories of their own.
  target_include_directories(${name} SYSTEM PUBLIC
    ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  install(TARGETS ${name} EXPORT FA4Targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()

# fa4_install_dialect_headers(name): the dialect's headers, ODS and generated
# declarations go to <prefix>/include/fa4/<name>.
function(fa4_install_dialect_headers name)
  install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fa4/${name}
    FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
  install(DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/fa4/${name}
    FILES_MATCHING PATTERN "*.inc"
    PATTERN "CMakeFiles" EXCLUDE)
endfunction()
