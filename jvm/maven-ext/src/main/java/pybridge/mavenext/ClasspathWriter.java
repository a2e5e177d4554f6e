package pybridge.mavenext;

import java.io.File;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

import javax.inject.Inject;
import javax.inject.Named;
import javax.inject.Singleton;

import org.apache.maven.AbstractMavenLifecycleParticipant;
import org.apache.maven.MavenExecutionException;
import org.apache.maven.RepositoryUtils;
import org.apache.maven.artifact.Artifact;
import org.apache.maven.execution.MavenSession;
import org.apache.maven.model.io.xpp3.MavenXpp3Writer;
import org.apache.maven.project.DefaultDependencyResolutionRequest;
import org.apache.maven.project.DependencyResolutionException;
import org.apache.maven.project.DependencyResolutionResult;
import org.apache.maven.project.MavenProject;
import org.apache.maven.project.ProjectDependenciesResolver;

/**
 * A Maven core extension (loaded with {@code -Dmaven.ext.class.path=<this jar>}) that gives
 * pybridge, without any plugin, what {@code help:effective-pom}, {@code dependency:build-classpath}
 * and {@code dependency:list} give on the real POMs. It acts only when the property
 * {@code pybridge.out} names a folder; then, once Maven has read the projects:
 *
 * <ul>
 *   <li>{@code <out>/effective-pom.xml}: every project's effective model, as
 *       {@code <projects><project>...</project>...</projects>};</li>
 *   <li>per project, {@code <out>/<groupId>~<artifactId>.test.cp}: the test classpath, the
 *       artifact files joined with the path separator, in the order of the artifacts Maven gives a
 *       mojo that requires test resolution (what build-classpath prints), and
 *       {@code <groupId>~<artifactId>.list}: the same artifacts, one a line, as dependency:list
 *       writes them with {@code outputScope} and {@code outputAbsoluteArtifactFilename}
 *       ({@code   g:a:type[:classifier]:version:scope:/abs/file});</li>
 *   <li>for a project whose dependencies do not resolve, {@code <groupId>~<artifactId>.error}
 *       with Maven's message instead of the two files.</li>
 * </ul>
 *
 * Before Maven reads the projects it writes an empty {@code <out>/started}: the extension was loaded.
 * Then it stops the build before any goal runs, by throwing a {@link MavenExecutionException}
 * whose message starts with {@link #DONE} (Maven exits with 1; the caller judges by the files).
 * Every file is written to a temporary name and renamed, so a file that exists is complete; the
 * effective POMs are written before any project is resolved.
 */
@Named("pybridge")
@Singleton
public class ClasspathWriter extends AbstractMavenLifecycleParticipant {
    public static final String DONE = "pybridge: classpaths written";

    private final ProjectDependenciesResolver resolver;

    @Inject
    public ClasspathWriter(ProjectDependenciesResolver resolver) {
        this.resolver = resolver;
    }

    /** Marks that the extension is loaded ({@code <out>/started}), before Maven reads the projects:
     * a run that ends with this file and no effective-pom.xml failed to read the projects. */
    @Override
    public void afterSessionStart(MavenSession session) throws MavenExecutionException {
        Path dir = outDir(session);
        if (dir != null) {
            try {
                Files.createDirectories(dir);
                write(dir.resolve("started"), "");
            } catch (IOException e) {
                throw new MavenExecutionException("pybridge: cannot write to " + dir + ": " + e, e);
            }
        }
    }

    private static Path outDir(MavenSession session) {
        String out = session.getUserProperties().getProperty("pybridge.out");
        if (out == null) {
            out = session.getSystemProperties().getProperty("pybridge.out");
        }
        return out == null || out.isEmpty() ? null : Paths.get(out);
    }

    @Override
    public void afterProjectsRead(MavenSession session) throws MavenExecutionException {
        Path dir = outDir(session);
        if (dir == null) {
            return;
        }
        try {
            Files.createDirectories(dir);
            StringBuilder poms = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<projects>\n");
            for (MavenProject project : session.getProjects()) {
                StringWriter pom = new StringWriter();
                new MavenXpp3Writer().write(pom, project.getModel());
                poms.append(stripDeclaration(pom.toString())).append('\n');
            }
            poms.append("</projects>\n");
            write(dir.resolve("effective-pom.xml"), poms.toString());
            for (MavenProject project : session.getProjects()) {
                resolve(session, project, dir);
            }
        } catch (IOException e) {
            throw new MavenExecutionException("pybridge: cannot write to " + dir + ": " + e, e);
        }
        throw new MavenExecutionException(DONE + " to " + dir, (Throwable) null);
    }

    private void resolve(MavenSession session, MavenProject project, Path dir) throws IOException {
        String name = project.getGroupId() + "~" + project.getArtifactId();
        DependencyResolutionResult result;
        try {
            result = resolver.resolve(new DefaultDependencyResolutionRequest(project, session.getRepositorySession()));
        } catch (DependencyResolutionException | RuntimeException e) {
            write(dir.resolve(name + ".error"), String.valueOf(e.getMessage()));
            return;
        }
        // As LifecycleDependencyResolver builds MavenProject.getArtifacts() for a mojo with
        // requiresDependencyResolution = test (the test scope filters nothing out).
        Set<Artifact> artifacts = new LinkedHashSet<>();
        if (result.getDependencyGraph() != null && !result.getDependencyGraph().getChildren().isEmpty()) {
            RepositoryUtils.toArtifacts(artifacts, result.getDependencyGraph().getChildren(),
                    Collections.singletonList(project.getArtifact().getId()), null);
        }
        StringBuilder cp = new StringBuilder();
        StringBuilder list = new StringBuilder("\nThe following files have been resolved:\n");
        for (Artifact a : artifacts) {
            File file = a.getFile();
            if (file == null) {
                write(dir.resolve(name + ".error"), "no file for " + a.getId());
                return;
            }
            if (cp.length() > 0) {
                cp.append(File.pathSeparatorChar);
            }
            cp.append(file.getAbsolutePath());
            list.append("   ").append(a.getGroupId()).append(':').append(a.getArtifactId()).append(':')
                    .append(a.getType()).append(':');
            if (a.getClassifier() != null && !a.getClassifier().isEmpty()) {
                list.append(a.getClassifier()).append(':');
            }
            list.append(a.getBaseVersion()).append(':').append(a.getScope()).append(':')
                    .append(file.getAbsolutePath()).append('\n');
        }
        if (artifacts.isEmpty()) {
            list.append("   none\n");
        }
        write(dir.resolve(name + ".test.cp"), cp.toString());
        write(dir.resolve(name + ".list"), list.toString());
    }

    private static String stripDeclaration(String xml) {
        String s = xml.trim();
        if (s.startsWith("<?xml")) {
            s = s.substring(s.indexOf("?>") + 2).trim();
        }
        return s;
    }

    private static void write(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (Writer w = new OutputStreamWriter(Files.newOutputStream(tmp), StandardCharsets.UTF_8)) {
            w.write(text);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
