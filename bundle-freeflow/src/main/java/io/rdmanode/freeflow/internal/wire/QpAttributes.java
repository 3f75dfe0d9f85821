// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** What QUERY_QP reports of a QP. */
public record QpAttributes(int state, int pathMtu, long qkey, long rqPsn, long sqPsn, int destQpNum, int accessFlags,
                           int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int minRnrTimer,
                           int portNum, int timeout, int retryCnt, int rnrRetry, byte[] dgid, int dlid) {
}
