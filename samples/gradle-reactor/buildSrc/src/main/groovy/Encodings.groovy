// buildSrc: code the build scripts use (app/build.gradle). Gradle compiles it before it
// configures the build, and writes buildSrc/.gradle and buildSrc/build while doing so.
class Encodings {
    static final String LATIN_1 = 'ISO-8859-1'
}
