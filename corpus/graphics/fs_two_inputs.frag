#version 450
layout(location = 5) in vec4 v5;
layout(location = 31) flat in vec4 v31;
layout(location = 0) out vec4 o0;
void main() {
    float r = 1.0 / gl_FragCoord.w;
    o0 = vec4(v5.x * gl_FragCoord.w * r, v5.y * gl_FragCoord.w * r, v31.z, v31.w);
}
