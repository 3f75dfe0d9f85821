// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A buffered byte sink for the exposition text, with client_java's number format: values as
 * {@link Double#toString(double)} (an integral counter below 10^7 written from its digits, with the same result
 * and no String), {@code +Inf}, {@code -Inf}. Not thread-safe; one per page.
 */
public final class TextSink {

    private static final long NEGATIVE_ZERO = Double.doubleToRawLongBits(-0.0);

    private final OutputStream out;
    private final byte[] buf = new byte[16 * 1024];
    private final byte[] digits = new byte[20];
    private int n;

    public TextSink(OutputStream out) {
        this.out = out;
    }

    public void write(byte[] b) throws IOException {
        if (b.length > buf.length - n) {
            flush();
            if (b.length > buf.length) {
                out.write(b);
                return;
            }
        }
        System.arraycopy(b, 0, buf, n, b.length);
        n += b.length;
    }

    public void write(char c) throws IOException {
        if (n == buf.length) {
            flush();
        }
        buf[n++] = (byte) c;
    }

    /** A value as client_java's writers write a double. */
    public void writeDouble(double v) throws IOException {
        if (v == Double.POSITIVE_INFINITY) {
            ascii("+Inf");
        } else if (v == Double.NEGATIVE_INFINITY) {
            ascii("-Inf");
        } else if (v >= 0 && v < 1e7 && v == Math.rint(v) && Double.doubleToRawLongBits(v) != NEGATIVE_ZERO) {
            // Double.toString of an integral value in [0, 10^7) is its digits and ".0" (JLS: no exponent below 10^7)
            writeLong((long) v);
            write('.');
            write('0');
        } else {
            ascii(Double.toString(v));
        }
    }

    public void writeLong(long v) throws IOException {
        if (v < 0) {
            ascii(Long.toString(v));
            return;
        }
        int i = digits.length;
        do {
            digits[--i] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
        if (digits.length - i > buf.length - n) {
            flush();
        }
        System.arraycopy(digits, i, buf, n, digits.length - i);
        n += digits.length - i;
    }

    /** A string known to be ASCII. */
    public void ascii(String s) throws IOException {
        for (int i = 0; i < s.length(); i++) {
            write(s.charAt(i));
        }
    }

    /** Hands the buffered bytes on; the stream itself is the caller's. */
    public void flush() throws IOException {
        if (n > 0) {
            out.write(buf, 0, n);
            n = 0;
        }
    }
}
