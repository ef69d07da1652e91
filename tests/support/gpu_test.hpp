// Include once in each GPU test file: defines main() that skips (77) without a GPU.
#pragma once
int gemmkit_gpu_test_main(int argc, char** argv);
int main(int argc, char** argv) { return gemmkit_gpu_test_main(argc, argv); }
