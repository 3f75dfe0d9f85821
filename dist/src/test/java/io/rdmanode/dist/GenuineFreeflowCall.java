// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/** Calls on the router's control socket as the genuine Freeflow client sends them, for the distribution's tests. */
final class GenuineFreeflowCall {

    /** The genuine client's function number of ALLOC_PD. */
    private static final int ALLOC_PD = 5;

    private GenuineFreeflowCall() {
    }

    /** One ALLOC_PD on its own connection: a 12-byte header {client id, function, body size}, LE; a 4-byte answer. */
    static int allocPd(Path socket) throws IOException {
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            ByteBuffer header = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(7).putInt(ALLOC_PD)
                    .putInt(0).flip();
            while (header.hasRemaining()) {
                channel.write(header);
            }
            ByteBuffer answer = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            while (answer.hasRemaining()) {
                if (channel.read(answer) < 0) {
                    throw new IOException("router closed the connection after " + answer.position() + " bytes");
                }
            }
            return answer.getInt(0);
        }
    }
}
