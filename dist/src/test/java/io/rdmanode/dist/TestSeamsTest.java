// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestSeamsTest {

    @TempDir
    Path dir;

    @Test
    void noTestInTheRepositoryImportsAnotherModulesInternalPackage() {
        Path root = TestSeams.repositoryRoot();
        assertThat(TestSeams.modules(root)).as("modules found under %s", root)
                .contains(root.resolve("dist"), root.resolve("agent-core/kubelet"));

        assertThat(TestSeams.violations(root)).as("test imports of another module's internal package under %s", root)
                .isEmpty();
    }

    @Test
    void namesFileLineAndImportOfAnotherModulesInternalsAndLetsOwnAndTestingPackagesBe() throws IOException {
        module("core", "main", "io/rdmanode/core/internal/Impl.java", "");
        module("core", "test", "io/rdmanode/core/internal/ImplTest.java",
                "import io.rdmanode.core.internal.grpc.Stub;\n");           // own internal root (generated code)
        module("core", "test", "io/rdmanode/core/testing/Testbed.java", "import io.rdmanode.core.internal.Impl;\n");
        module("user", "main", "io/rdmanode/user/internal/User.java", "");
        module("user", "test", "io/rdmanode/user/internal/UserTest.java", """
                import io.rdmanode.core.testing.Testbed;
                import io.rdmanode.core.Api;
                import io.rdmanode.user.internal.User;
                import io.rdmanode.core.internal.Impl;
                import static io.rdmanode.core.internal.sub.Util.helper;
                import io.rdmanode.core.internal.*;
                """);

        assertThat(TestSeams.violations(dir)).containsExactly(
                "user/src/test/java/io/rdmanode/user/internal/UserTest.java:7 imports io.rdmanode.core.internal.Impl"
                        + " (another module's internal package; use that module's testing package)",
                "user/src/test/java/io/rdmanode/user/internal/UserTest.java:8 imports"
                        + " io.rdmanode.core.internal.sub.Util.helper"
                        + " (another module's internal package; use that module's testing package)",
                "user/src/test/java/io/rdmanode/user/internal/UserTest.java:9 imports io.rdmanode.core.internal.*"
                        + " (another module's internal package; use that module's testing package)");
    }

    private void module(String name, String tree, String file, String imports) throws IOException {
        Path module = dir.resolve(name);
        Files.createDirectories(module);
        Files.writeString(module.resolve("pom.xml"), "<project/>\n");
        Files.createDirectories(module.resolve("src/test/java"));
        Path source = module.resolve("src/" + tree + "/java/" + file);
        Files.createDirectories(source.getParent());
        String pkg = file.substring(0, file.lastIndexOf('/')).replace('/', '.');
        Files.writeString(source, "// SPDX-License-Identifier: Apache-2.0\npackage " + pkg + ";\n\n" + imports
                + "\nclass X {\n}\n");
    }
}
