"""Pick the ncu metrics to collect from `ncu --query-metrics` output: the
curated shared-memory list, plus every counter whose name mentions shared
memory, ldsm/stsm/ldgsts, or is an inst_executed *pred_on* counter. Prints
two comma lists: the full one, then the minimal fallback."""
import re, sys
q = open(sys.argv[1]).read()
names = {}
for line in q.splitlines():
    m = re.match(r"^\s*([a-z0-9_]+__[a-z0-9_]+)\s+(\w+)", line)
    if m:
        names[m.group(1)] = m.group(2)
curated = """smsp__sass_inst_executed_op_shared_ld smsp__sass_inst_executed_op_shared_st
smsp__sass_inst_executed_op_shared_atom smsp__sass_inst_executed_op_ldsm smsp__sass_inst_executed_op_shared_stsm
smsp__sass_inst_executed_op_ldgsts smsp__sass_inst_executed_op_shared
l1tex__data_pipe_lsu_wavefronts_mem_shared l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom
l1tex__data_bank_conflicts_pipe_lsu_mem_shared l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts
sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm
sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts
sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts
smsp__inst_executed smsp__sass_inst_executed smsp__sass_thread_inst_executed_op_shared_ld
smsp__sass_thread_inst_executed_op_shared_st
smsp__inst_executed_op_shared_ld smsp__inst_executed_op_shared_ld_pred_on_any smsp__inst_executed_op_shared_ld_pred_off_all
smsp__inst_executed_op_shared_st smsp__inst_executed_op_shared_st_pred_on_any smsp__inst_executed_op_shared_st_pred_off_all
smsp__inst_executed_op_shared_atom smsp__inst_executed_op_shared_atom_pred_on_any smsp__inst_executed_op_shared_atom_pred_off_all
smsp__inst_executed_op_ldsm smsp__inst_executed_op_ldsm_pred_on_any smsp__inst_executed_op_ldsm_pred_off_all
smsp__inst_executed_op_ldgsts smsp__inst_executed_op_ldgsts_pred_on_any smsp__inst_executed_op_ldgsts_pred_off_all
smsp__inst_executed_op_shared_stsm smsp__inst_executed_op_shared_stsm_pred_on_any
sm__inst_executed_pipe_lsu_mem_shared_cmd_read sm__inst_executed_pipe_lsu_mem_shared_cmd_write
l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write
smsp__inst_executed_op_generic_ld smsp__inst_executed_op_generic_st smsp__inst_executed_op_generic_atom
smsp__sass_inst_executed_op_shared_gmma l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma""".split()
launch = """launch__grid_size launch__block_size launch__registers_per_thread launch__shared_mem_per_block_static
launch__shared_mem_per_block_dynamic launch__shared_mem_config_size launch__occupancy_limit_registers
launch__occupancy_limit_shared_mem launch__occupancy_limit_warps launch__occupancy_limit_blocks
launch__waves_per_multiprocessor launch__occupancy_per_block_size""".split()
pick = []
for n in curated:
    if not names or n in names:
        pick.append(n)
for n, t in sorted(names.items()):
    if t.lower() != "counter" or n in pick:
        continue
    if re.search(r"shared|ldsm|stsm|ldgsts", n) and not re.search(r"dsmem|distributed|remote|tma|ugmma|gmma", n):
        pick.append(n)
    elif "pred_on" in n and "inst_executed" in n and re.search(r"shared|_ld|_st|atom", n):
        pick.append(n)
pick = pick[:150]
full = [n + ".sum" for n in pick] + [n for n in launch if not names or n in names or True]
minimal = [n + ".sum" for n in curated[:16]] + launch[:5]
print(",".join(full))
print(",".join(minimal))
