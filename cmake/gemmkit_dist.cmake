# gemmkit_dist: tensor-parallel GEMM over NCCL (include/gemmkit/dist.hpp), a library of its own so
# that plain gemmkit users get no libnccl dependency. The partitioning, the checks and the
# workspace sizes are always built (host only); the NCCL operations (src/dist/*_nccl.cpp) only
# with the CUDA backend and NCCL found (nccl.h and libnccl, e.g. in the CUDA toolkit); without
# them src/dist/nccl_absent.cpp answers NotSupported "built without NCCL". Sets GEMMKIT_HAVE_NCCL.
set(GEMMKIT_HAVE_NCCL OFF)
if(GEMMKIT_HAVE_CUDA)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_ROOT}/lib
    ${CUDAToolkit_TARGET_DIR}/lib ${CUDAToolkit_LIBRARY_DIR})
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(GEMMKIT_HAVE_NCCL ON)
    message(STATUS "gemmkit: NCCL found (${NCCL_LIBRARY}): gemmkit_dist has the NCCL operations")
  else()
    message(STATUS "gemmkit: NCCL not found: gemmkit_dist without the NCCL operations")
  endif()
endif()

file(GLOB GEMMKIT_DIST_SOURCES CONFIGURE_DEPENDS src/dist/*.cpp)
if(GEMMKIT_HAVE_NCCL)
  list(REMOVE_ITEM GEMMKIT_DIST_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/src/dist/nccl_absent.cpp)
else()
  list(FILTER GEMMKIT_DIST_SOURCES EXCLUDE REGEX "_nccl\\.cpp$")
endif()
add_library(gemmkit_dist SHARED ${GEMMKIT_DIST_SOURCES})
add_library(gemmkit::gemmkit_dist ALIAS gemmkit_dist)
target_include_directories(gemmkit_dist PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
target_compile_options(gemmkit_dist PRIVATE ${GEMMKIT_WARNINGS})
target_link_libraries(gemmkit_dist PUBLIC gemmkit)
set_target_properties(gemmkit_dist PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0)
if(GEMMKIT_HAVE_NCCL)
  target_include_directories(gemmkit_dist SYSTEM PRIVATE ${NCCL_INCLUDE_DIR})
  target_compile_definitions(gemmkit_dist PUBLIC $<BUILD_INTERFACE:GEMMKIT_HAVE_NCCL=1>)
  target_link_libraries(gemmkit_dist PRIVATE ${NCCL_LIBRARY} CUDA::cudart_static)
endif()
install(TARGETS gemmkit_dist EXPORT gemmkitTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# What a test or the command needs to create communicators itself (ncclCommInitAll).
function(gemmkit_link_nccl tgt)
  target_link_libraries(${tgt} PRIVATE gemmkit_dist)
  if(GEMMKIT_HAVE_NCCL)
    target_include_directories(${tgt} SYSTEM PRIVATE ${NCCL_INCLUDE_DIR})
    target_link_libraries(${tgt} PRIVATE ${NCCL_LIBRARY})
  endif()
endfunction()
