# CUDA detection: GEMMKIT_CUDA=AUTO enables the backend when nvcc is found.
set(GEMMKIT_HAVE_CUDA OFF)
if(NOT GEMMKIT_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_ARCHITECTURES ${GEMMKIT_CUDA_ARCHS})
    enable_language(CUDA)
    # CMake 3.25 predates nvcc's C++20 support in its flag tables: teach it the flag.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    # CCCL (cuda::ptx). CUDA 13 keeps it under include/cccl with a CMake package in lib/cmake.
    find_package(CCCL CONFIG QUIET HINTS ${CUDAToolkit_LIBRARY_ROOT}/lib/cmake
      ${CUDAToolkit_TARGET_DIR}/lib/cmake)
    set(GEMMKIT_HAVE_CUDA ON)
    message(STATUS "gemmkit: CUDA backend ON (${CMAKE_CUDA_COMPILER_VERSION}, archs ${GEMMKIT_CUDA_ARCHS})")
  elseif(GEMMKIT_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GEMMKIT_CUDA=ON but no CUDA compiler was found")
  else()
    message(STATUS "gemmkit: CUDA backend OFF (nvcc not found)")
  endif()
endif()

function(gemmkit_setup_cuda_target tgt)
  target_compile_definitions(${tgt} PUBLIC $<BUILD_INTERFACE:GEMMKIT_HAVE_CUDA=1>)
  # ptxas warnings fail the build: spills, and C7510 (wgmma serialized across a function
  # boundary, 10-25x slower).
  target_compile_options(${tgt} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xptxas=-warn-spills,-Werror -lineinfo>)
  set_target_properties(${tgt} PROPERTIES CUDA_RUNTIME_LIBRARY Static
    CUDA_ARCHITECTURES "${GEMMKIT_CUDA_ARCHS}")
  target_link_libraries(${tgt} PRIVATE CUDA::cudart_static)
  if(TARGET CCCL::CCCL)
    target_link_libraries(${tgt} PRIVATE CCCL::CCCL)
  endif()
endfunction()
