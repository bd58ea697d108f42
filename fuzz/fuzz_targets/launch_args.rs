#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| smem_model_fuzz::launch_args(data));
