package dev.pybridge.indexer;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import org.eclipse.jdt.internal.compiler.batch.ClasspathDirectory;
import org.eclipse.jdt.internal.compiler.batch.FileSystem;
import org.eclipse.jdt.internal.compiler.batch.FileSystem.Classpath;
import org.eclipse.jdt.internal.compiler.env.IModule;
import org.eclipse.jdt.internal.compiler.env.NameEnvironmentAnswer;

/**
 * A classpath entry placed just before a source folder of a request (PYBRIDGE_CLASS_CACHE,
 * {@link ClassCache}): it answers a type with its class file where the folder would answer it with a
 * source file that an earlier request compiled and that is unchanged since; it answers nothing else
 * (no package, no type name, no module), so JDT goes on to the folder itself for everything else.
 *
 * <p>JDT's {@code FileSystem} asks its entries in order and takes the first answer; it looks for
 * secondary types (a type declared in a file of another name) only in {@link ClasspathDirectory}
 * entries, so those always come from the folder's sources: {@link ClassCache} keeps no unit that
 * declares one.
 */
final class CachedClasspath implements Classpath {
    /** What replaces the folder's answer for a type: the answer itself, or null, when nothing does. */
    interface Answers {
        NameEnvironmentAnswer replace(NameEnvironmentAnswer answer, String qualifiedBinaryFileName);

        /** {@code dir}, a package folder of the sourcepath, was searched for a type. */
        void consulted(String dir);

        /** The answer for member type {@code qualifiedBinaryFileName} whose top-level type's file the folder answers with {@code top}. */
        NameEnvironmentAnswer member(NameEnvironmentAnswer top, String qualifiedBinaryFileName);
    }

    private final ClasspathDirectory folder;
    private final Answers answers;
    private PathKind kind;

    CachedClasspath(ClasspathDirectory folder, Answers answers) {
        this.folder = folder;
        this.answers = answers;
    }

    @Override
    public NameEnvironmentAnswer findClass(char[] typeName, String qualifiedPackageName, String moduleName,
                                           String qualifiedBinaryFileName) {
        return findClass(typeName, qualifiedPackageName, moduleName, qualifiedBinaryFileName, false);
    }

    @Override
    public NameEnvironmentAnswer findClass(char[] typeName, String qualifiedPackageName, String moduleName,
                                           String qualifiedBinaryFileName, boolean asBinaryOnly) {
        answers.consulted(folder.getPath() + qualifiedPackageName);
        NameEnvironmentAnswer source = folder.findClass(typeName, qualifiedPackageName, moduleName,
                qualifiedBinaryFileName, asBinaryOnly);
        String name = new String(typeName);
        int dollar = name.indexOf('$');
        if (source == null && dollar > 0) {
            // A member type named by a class file served here (p/A$B): the folder knows only A's file. Its
            // class file if A's is served, else A's source, which declares it (as a secondary type's file).
            String top = name.substring(0, dollar);
            String topFile = qualifiedBinaryFileName.substring(0, qualifiedBinaryFileName.length() - name.length()
                    - ".class".length()) + top + ".class";
            NameEnvironmentAnswer topSource = folder.findClass(top.toCharArray(), qualifiedPackageName, moduleName,
                    topFile, asBinaryOnly);
            if (topSource == null || topSource.getCompilationUnit() == null) return null;
            return answers.member(topSource, qualifiedBinaryFileName);
        }
        NameEnvironmentAnswer replaced = answers.replace(source, qualifiedBinaryFileName);
        return replaced == source ? null : replaced;       // the folder gives its own answers itself
    }

    @Override
    public char[][][] findTypeNames(String qualifiedPackageName, String moduleName) {
        return null;
    }

    @Override
    public boolean isPackage(String qualifiedPackageName, String moduleName) {
        return false;
    }

    @Override
    public List<Classpath> fetchLinkedJars(FileSystem.ClasspathSectionProblemReporter problemReporter) {
        return null;
    }

    @Override
    public void reset() {
        // nothing of its own: the folder is reset as an entry of its own
    }

    @Override
    public char[] normalizedPath() {
        return folder.normalizedPath();
    }

    @Override
    public String getPath() {
        return folder.getPath();
    }

    @Override
    public void initialize() {
        // the folder is initialized as an entry of its own
    }

    @Override
    public boolean hasAnnotationFileFor(String qualifiedTypeName) {
        return false;
    }

    @Override
    public void acceptModule(IModule module) {
        // belongs to no module: answers only for the unnamed one, as the source folders of a request do
    }

    @Override
    public String getDestinationPath() {
        return folder.getDestinationPath();
    }

    @Override
    public Collection<String> getModuleNames(Collection<String> limitModules) {
        return Collections.emptyList();
    }

    @Override
    public Collection<String> getModuleNames(Collection<String> limitModules, Function<String, IModule> getModule) {
        return Collections.emptyList();
    }

    @Override
    public char[][] getModulesDeclaringPackage(String qualifiedPackageName, String moduleName) {
        return null;
    }

    @Override
    public boolean hasCompilationUnit(String qualifiedPackageName, String moduleName) {
        return false;
    }

    @Override
    public void setPathKind(PathKind kind) {
        this.kind = kind;
    }

    @Override
    public PathKind getPathKind() {
        return kind;
    }
}
