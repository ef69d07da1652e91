// gemmkit kernels: list the kernel registry.
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "dispatch/model_json.hpp"

namespace gemmkit::cli {

void add_kernels_command(CLI::App& app) {
  auto pattern = std::make_shared<std::string>("all");
  CLI::App* cmd = app.add_subcommand("kernels", "list registered kernels");
  cmd->add_option("pattern", *pattern, "glob over kernel names")->capture_default_str();
  cmd->callback([pattern] {
    for (const dispatch::KernelInfo* k : dispatch::registry().match(*pattern)) {
      const std::string role(dispatch::kernel_role_name(k->role));
      std::printf("%-40s %-5s %-10s %s  (%s)%s\n", k->name.c_str(),
                  std::string(backend_name(k->backend)).c_str(), role.c_str(),
                  dispatch::to_string(k->config).c_str(), k->note.c_str(),
                  k->m_invariant ? " [M-invariant]" : "");
    }
  });
}

}  // namespace gemmkit::cli
