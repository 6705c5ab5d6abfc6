// Fuzz target for a Jupyter message as it comes off a kernel's socket (kernels/jupytermessage.h):
// the input is split into frames at each byte 0x1e, signed or not under a fixed key. Beyond not
// crashing: a message that is read re-signs to frames that read back as the same message, and a
// message read under the key never reads under another.
#include "kernels/jupytermessage.h"

#include <QByteArray>
#include <QList>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ferry::kernels;
    const QByteArray input(reinterpret_cast<const char *>(data), qsizetype(size));
    const QList<QByteArray> frames = input.split('\x1e');
    const QByteArray key = "0123456789abcdef0123456789abcdef";
    for (const QByteArray &k : {key, QByteArray()}) {
        const auto message = fromFrames(frames, k);
        if (!message)
            continue;
        const auto again = fromFrames(toFrames(*message, k), k);
        if (!again || again->header != message->header || again->content != message->content ||
            again->parentHeader != message->parentHeader || again->metadata != message->metadata ||
            again->identities != message->identities || again->buffers != message->buffers)
            std::abort();
        if (!k.isEmpty() && fromFrames(frames, QByteArrayLiteral("another key")))
            std::abort();
    }
    return 0;
}
