// SPDX-License-Identifier: Apache-2.0
/** What the probe components saw, for integration tests of configuration delivery and hot swap. */
@Export
@Version("1.0.0")
package io.rdmanode.probe;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
