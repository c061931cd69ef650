"""A GPU named as the driver reports it (nvidia-smi --query-gpu=name, torch.cuda.get_device_name(), rocm-smi) resolves
to its registry part, or is refused in one line where the name does not say which part it is.

Each name below was read in public output (vLLM's and PyTorch's collect_env, nvidia-smi pastes in issue threads);
the part it denotes is what that output or the thread states. data/hardware/gpu_device_names.csv holds the names
that say the part in other words than the registry's, with their sources; the rest resolve by dropping the vendor's
words (hardware.VENDOR_WORDS)."""
import pytest

from tinker_nomics import sources
from tinker_nomics.errors import TinkerNomicsError, UnknownNameError
from tinker_nomics.faces.cli import main

RESOLVED = [
    ("NVIDIA H100 80GB HBM3", "H100 SXM"),           # skypilot-org/skypilot#2945 (H100-80GB-SXM), composer#2265
    ("NVIDIA H100 PCIe", "H100 PCIe"),               # mistralai/mistral-inference#43
    ("NVIDIA H100 NVL", "H100 NVL"),                 # akash-network/provider-configs#91 (nvidia-smi, 94 GiB)
    ("NVIDIA H200", "H200 SXM"),                     # zzc0721/torch-performance-test-data#45; composer#3889
    ("NVIDIA H800", "H800 SXM"),                     # vllm-project/vllm#17516
    ("NVIDIA H20", "H20"),                           # NVIDIA/nvtrust#128 (97871 MiB)
    ("NVIDIA B200", "B200"),                         # pytorch/test-infra#7631
    ("NVIDIA GB200", "GB200"),                       # sgl-project/sglang#11208
    ("NVIDIA B300 SXM6 AC", "B300"),                 # NVIDIA/cosmos-framework#114
    ("NVIDIA A100-SXM4-80GB", "A100 80GB SXM"),      # vllm-project/vllm#15081
    ("NVIDIA A100-SXM4-40GB", "A100 40GB SXM"),      # vllm-project/vllm#18272
    ("NVIDIA A100-PCIE-40GB", "A100 40GB PCIe"),     # siliconflow/onediff#1044
    ("NVIDIA A100 80GB PCIe", "A100 80GB PCIe"),     # vectorch-ai/ScaleLLM#288
    ("NVIDIA L40S", "L40S"),                         # akash-network/provider-configs#99
    ("NVIDIA L40", "L40"),                           # vllm-project/vllm#7494
    ("NVIDIA L4", "L4"),                             # zzc0721/torch-performance-test-data#120
    ("NVIDIA A10", "A10"),                           # vllm-project/vllm#7943
    ("NVIDIA A10G", "A10G"),                         # awslabs/amazon-eks-ami#1523 (g5.4xlarge)
    ("NVIDIA A40", "A40"),                           # zzc0721/torch-performance-test-data#185
    ("NVIDIA A30", "A30"),                           # vllm-project/vllm#7246
    ("NVIDIA RTX A6000", "RTX A6000"),               # zzc0721/torch-performance-test-data#46
    ("NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada"),   # vllm-project/vllm#6465
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX PRO 6000 Blackwell Server"),            # zzc0721 …#44
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTX PRO 6000 Blackwell Workstation"),  # zzc0721 …#160
    ("NVIDIA GeForce RTX 4090", "RTX 4090"),         # zzc0721/torch-performance-test-data#41
    ("NVIDIA GeForce RTX 3090", "RTX 3090"),         # pytorch/pytorch#75198
    ("NVIDIA GeForce RTX 5090", "RTX 5090"),         # zzc0721/torch-performance-test-data#96
    ("Tesla T4", "T4"),                              # NVIDIA/nvidia-docker#1628
    ("Tesla V100-SXM2-32GB", "V100 32GB SXM"),       # ryujaehun/pytorch-gpu-benchmark#32
    ("AMD Instinct MI300X", "MI300X"),               # pytorch/ao#2853
    ("AMD Instinct MI325X", "MI325X"),               # ROCm/rocm-install-on-linux#656 (amd-smi)
    ("AMD Instinct MI355X", "MI355X"),               # pytorch/pytorch#196365
    ("AMD Instinct MI250X", "MI250X GCD"),           # one device per GCD (LUMI user guide: a module is two GPUs)
    # GPUs published LLM-inference benchmarks use (2026-12-03). NVIDIA's driver table = open-gpu-kernel-modules
    # README @315fd96d (560.31.02), the names the driver prints, with their PCI IDs
    ("NVIDIA GH200 480GB", "GH200 96GB"),            # vllm-project/vllm#9630 (480GB is the Grace CPU's LPDDR5X)
    ("NVIDIA GH200 120GB", "GH200 96GB"),            # NVIDIA driver table: 2342 10DE 16EB / 1805 (same GPU, 120 GB LPDDR5X)
    ("NVIDIA GH200 144G HBM3e", "GH200 144GB"),      # vllm-project/vllm#18390
    ("NVIDIA L20", "L20"),                           # NVIDIA driver table: 26BA; 1Panel-dev/1Panel#10990 (4x L20)
    ("NVIDIA A800-SXM4-80GB", "A800 80GB SXM"),      # dexmal/dexbotic#41
    ("NVIDIA A800 80GB PCIe", "A800 80GB PCIe"),     # vllm-project/vllm#8686
    ("NVIDIA A800 40GB Active", "A800 40GB PCIe"),   # NVIDIA driver table: 20F6
    ("NVIDIA H800 PCIe", "H800 PCIe"),               # zzc0721/torch-performance-test-data#112
    ("Tesla V100-SXM2-16GB", "V100 16GB SXM"),       # 1CatAI/1Cat-vLLM#85
    ("Tesla V100-PCIE-16GB", "V100 16GB PCIe"),      # NVIDIA/nvidia-docker#1285
    ("Tesla V100-PCIE-32GB", "V100 32GB PCIe"),      # vllm-project/vllm#18603
    ("Tesla V100S-PCIE-32GB", "V100S PCIe"),         # vllm-project/vllm#10147
    ("NVIDIA GeForce RTX 4090 D", "RTX 4090 D"),     # zzc0721/torch-performance-test-data#20 (114 SMs, not the 4090's 128)
]

# The registry names of the parts above resolve too (the datasheet name), the SXM parts also without ' SXM'.
DATASHEET_NAMES = [("GH200 96GB", "GH200 96GB"), ("gh200-144gb", "GH200 144GB"), ("L20", "L20"),
                   ("A800 80GB SXM", "A800 80GB SXM"), ("A800 80GB", "A800 80GB SXM"), ("a800 80gb pcie", "A800 80GB PCIe"),
                   ("A800 40GB PCIe", "A800 40GB PCIe"), ("V100 16GB SXM", "V100 16GB SXM"),
                   ("V100 16GB", "V100 16GB SXM"), ("V100 16GB PCIe", "V100 16GB PCIe"),
                   ("V100 32GB PCIe", "V100 32GB PCIe"), ("V100S PCIe", "V100S PCIe"), ("H800 PCIe", "H800 PCIe"),
                   ("RTX 4090 D", "RTX 4090 D"), ("rtx-4090-d", "RTX 4090 D"), ("A10G", "A10G")]


@pytest.mark.parametrize("device, part", RESOLVED)
def test_a_driver_name_resolves_to_its_part(device, part):
    assert sources.get_gpu(device).gpu == part
    assert sources.gpu_specs(device).name[()] == part


@pytest.mark.parametrize("name, part", DATASHEET_NAMES)
def test_a_datasheet_name_resolves_to_its_part(name, part):
    assert sources.get_gpu(name).gpu == part


def test_near_names_of_different_parts_do_not_collide():
    """The D, S and memory suffixes name other parts with other figures: none resolves to its neighbour."""
    pairs = [("NVIDIA GeForce RTX 4090 D", "NVIDIA GeForce RTX 4090"), ("Tesla V100S-PCIE-32GB", "Tesla V100-PCIE-32GB"),
             ("Tesla V100-SXM2-16GB", "Tesla V100-SXM2-32GB"), ("NVIDIA GH200 480GB", "NVIDIA GH200 144G HBM3e"),
             ("NVIDIA H800 PCIe", "NVIDIA H800"), ("NVIDIA A800-SXM4-80GB", "NVIDIA A100-SXM4-80GB")]
    for a, b in pairs:
        ga, gb = sources.get_gpu(a), sources.get_gpu(b)
        assert ga.gpu != gb.gpu, (a, b)
        assert (ga.memory_gb, ga.hbm_bandwidth_tb_s, ga.bf16_dense_tflops, ga.interconnect) != \
            (gb.memory_gb, gb.hbm_bandwidth_tb_s, gb.bf16_dense_tflops, gb.interconnect), (a, b)


# Parts the registry does not hold (each read in public output too): unknown, with the closest names. (The H800 PCIe,
# A800-SXM4-80GB, V100-SXM2-16GB, V100S-PCIE-32GB and RTX 4090 D once listed here have rows since 2026-12-03.)
@pytest.mark.parametrize("device", [
    "NVIDIA A800-SXM4-40GB",       # vllm-project/vllm#25850 (the 40 GB SXM4 A800: no registry row)
    "NVIDIA", "Tesla  ", "AMD Instinct",
])
def test_a_part_the_registry_lacks_stays_unknown(device):
    with pytest.raises(UnknownNameError, match="unknown GPU"):
        sources.get_gpu(device)


@pytest.mark.parametrize("device, says", [
    ("AMD Instinct MI250X/MI250", "MI250X GCD"),     # ROCm/aiter#179: a GCD of either part (the registry has no MI250)
    ("AMD Radeon Graphics", "generic name"),          # unslothai/unsloth#4048
])
def test_a_name_that_denotes_no_single_part_is_refused_in_one_line(device, says, capsys):
    with pytest.raises(TinkerNomicsError, match=says):
        sources.get_gpu(device)
    assert sources.get_gpu("MI250X").gpu == "MI250X"      # the registry's own name is the whole module
    assert sources.get_gpu("MI250X GCD").memory_gb * 2 == sources.get_gpu("MI250X").memory_gb
    code = main(["predict", "decode", "--model", "Qwen/Qwen3-8B", "--gpu", device, "--num-gpus", "1",
                 "--concurrency", "1", "--input-len", "128", "--output-len", "128"])
    err = capsys.readouterr().err
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1


def test_the_cli_takes_a_driver_name_and_answers_as_for_the_part(capsys):
    args = ["predict", "decode", "--model", "Qwen/Qwen3-8B", "--num-gpus", "1", "--concurrency", "8",
            "--input-len", "512", "--output-len", "256", "--format", "json"]
    assert main(args + ["--gpu", "NVIDIA H100 80GB HBM3"]) == 0
    by_device = capsys.readouterr().out
    assert main(args + ["--gpu", "H100 SXM"]) == 0
    assert by_device == capsys.readouterr().out


def test_every_table_row_names_a_registry_part_or_says_why_not():
    for key, (part, note) in sources.hardware.device_names().items():
        assert (part in sources.gpus()) if part else note, key


@pytest.mark.parametrize("name, part", [
    ("A100-SXM4-80GB", "A100 80GB SXM"),        # a driver name with its vendor word left off (vLLM#15081's, trimmed)
    ("V100-SXM2-32GB", "V100 32GB SXM"),
    ("A100 PCIe 80GB", "A100 80GB PCIe"),       # the registry's words in another order
    ("PCIe A100 80GB", "A100 80GB PCIe"),
    ("SXM H100", "H100 SXM"),
])
def test_a_trimmed_driver_name_or_reordered_words_resolve(name, part):
    assert sources.get_gpu(name).gpu == part


@pytest.mark.parametrize("name", ["80GB A100",    # SXM or PCIe: the words are in two parts' names
                                  "A100"])        # the bare name stays refused, listing its variants
def test_words_that_fit_two_parts_stay_refused(name):
    with pytest.raises(UnknownNameError, match="A100 80GB SXM"):
        sources.get_gpu(name)


@pytest.mark.parametrize("written, part", [
    # as benchmark tables and cloud catalogs write them: the part with its memory size or form factor added
    ("L40S-48GB", "L40S"), ("H200-141GB", "H200 SXM"), ("MI300X-192GB", "MI300X"), ("RTX 4090 24GB", "RTX 4090"),
    ("A10G 24GB", "A10G"), ("B200-180GB", "B200"), ("H100 PCIe 80GB", "H100 PCIe"), ("RTX A6000 48GB", "RTX A6000"),
    ("H20-96GB", "H20"), ("H100 SXM5", "H100 SXM"), ("H100-SXM5-80GB", "H100 SXM"), ("L40S PCIe", "L40S"),
    ("GeForce RTX 4090 24GB", "RTX 4090"), ("V100 SXM2 32GB", "V100 32GB SXM"),
])
def test_a_part_named_with_its_memory_or_form_factor_is_that_part(written, part):
    assert sources.get_gpu(written).gpu == part
    assert sources.get_gpu(written).memory_gb == sources.get_gpu(part).memory_gb


@pytest.mark.parametrize("written, needle", [
    ("RTX 4090 48GB", "the registry's RTX 4090 has 24 GB, not 48 GB"),     # a modded card is not the part
    ("MI300X PCIe", "unknown GPU 'MI300X PCIe'"),                        # the MI300X is an OAM module, not PCIe
])
def test_a_memory_size_or_form_the_part_lacks_is_refused_in_one_line(written, needle, capsys):
    with pytest.raises(TinkerNomicsError, match=needle):
        sources.get_gpu(written)
    code = main(["predict", "decode", "--model", "Qwen3-8B", "--gpu", written, "--num-gpus", "1",
                 "--concurrency", "1", "--input-len", "128", "--output-len", "128"])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1
