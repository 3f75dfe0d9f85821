// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/** HTTP/1.1 by hand over a plain socket: what a prober, a slow client or a hostile one sends, byte for byte. */
final class RawHttp {

    record Answer(int code, String head, String body) {
    }

    private RawHttp() {
    }

    static Socket connect(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** One request on a new connection, {@code Connection: close}, read to the end. */
    static Answer get(int port, String path) throws IOException {
        try (Socket socket = connect(port)) {
            send(socket, "GET " + path + " HTTP/1.1\r\nHost: agent\r\nConnection: close\r\n\r\n");
            return parse(readAll(socket.getInputStream()));
        }
    }

    static void send(Socket socket, String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    /** Whether the server closed the connection: end of stream (or a reset) before {@code timeoutMillis}. */
    static boolean closedByServer(Socket socket, int timeoutMillis) throws IOException {
        socket.setSoTimeout(timeoutMillis);
        try {
            InputStream in = socket.getInputStream();
            while (in.read() != -1) {
                // an answer before the close is read past
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    static Answer parse(String response) {
        int split = response.indexOf("\r\n\r\n");
        String head = split < 0 ? response : response.substring(0, split);
        String body = split < 0 ? "" : response.substring(split + 4);
        int code = head.startsWith("HTTP/1.1 ") ? Integer.parseInt(head.substring(9, 12)) : -1;
        return new Answer(code, head, body);
    }
}
