/*
 * Reads the running test program's own ELF file (the path it was started by, AT_EXECFN: under
 * valgrind 3.16, Debian 11's, /proc/self/exe is valgrind's own file): its sections, where they
 * are loaded, and its stapsdt notes. Just enough for the runtime tests; x86-64/aarch64 only.
 */
#ifndef USDT_TESTS_SELF_ELF_H
#define USDT_TESTS_SELF_ELF_H

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

struct SelfSection {
    std::uintptr_t link_address;  // sh_addr, as notes record addresses
    std::uintptr_t address;       // where it is in this process
    std::string bytes;            // its contents in the file (empty for NOBITS)
};

struct ProbeNote {
    std::uint64_t pc, base, semaphore;  // link-time addresses, as in the note
    std::string provider, name, arguments;
};

template <typename T>
T read_at(const std::string &bytes, std::size_t offset) {
    T value;
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return value;
}

// The main program is dl_iterate_phdr's first module; dlpi_addr is its load bias (PIE).
inline std::uintptr_t self_load_bias() {
    std::uintptr_t bias = 0;
    dl_iterate_phdr([](dl_phdr_info *info, std::size_t, void *data) {
        *static_cast<std::uintptr_t *>(data) = info->dlpi_addr;
        return 1;
    }, &bias);
    return bias;
}

// Every section called `name` (a linker may emit several of the same name).
inline std::vector<SelfSection> self_sections(const char *name) {
    std::ifstream file(reinterpret_cast<const char *>(getauxval(AT_EXECFN)), std::ios::binary);
    const std::string image{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    const auto header = read_at<Elf64_Ehdr>(image, 0);
    const auto names = read_at<Elf64_Shdr>(image, header.e_shoff + header.e_shstrndx * sizeof(Elf64_Shdr));
    std::vector<SelfSection> found;
    for (unsigned index = 0; index < header.e_shnum; ++index) {
        const auto section = read_at<Elf64_Shdr>(image, header.e_shoff + index * sizeof(Elf64_Shdr));
        if (std::strcmp(image.c_str() + names.sh_offset + section.sh_name, name) != 0)
            continue;
        const std::size_t size = section.sh_type == SHT_NOBITS ? 0 : section.sh_size;
        found.push_back({section.sh_addr, section.sh_addr + self_load_bias(),
                         image.substr(section.sh_offset, size)});
    }
    return found;
}

// The SystemTap SDT v3 notes (owner "stapsdt", type 3) of this program.
inline std::vector<ProbeNote> self_probe_notes() {
    const auto align4 = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };
    std::vector<ProbeNote> notes;
    for (const SelfSection &section : self_sections(".note.stapsdt")) {
        const std::string &bytes = section.bytes;
        for (std::size_t offset = 0; offset + sizeof(Elf64_Nhdr) <= bytes.size();) {
            const auto header = read_at<Elf64_Nhdr>(bytes, offset);
            const std::size_t owner = offset + sizeof header;
            const std::size_t desc = owner + align4(header.n_namesz);
            offset = desc + align4(header.n_descsz);
            if (header.n_type != 3 || std::strcmp(bytes.c_str() + owner, "stapsdt") != 0)
                continue;
            ProbeNote note;
            note.pc = read_at<std::uint64_t>(bytes, desc);
            note.base = read_at<std::uint64_t>(bytes, desc + 8);
            note.semaphore = read_at<std::uint64_t>(bytes, desc + 16);
            note.provider = bytes.c_str() + desc + 24;
            note.name = bytes.c_str() + desc + 24 + note.provider.size() + 1;
            note.arguments = bytes.c_str() + desc + 24 + note.provider.size() + note.name.size() + 2;
            notes.push_back(note);
        }
    }
    return notes;
}

#endif /* USDT_TESTS_SELF_ELF_H */
