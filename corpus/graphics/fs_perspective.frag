#version 450
layout(location = 0) in vec4 v0;
layout(location = 0) out vec4 o0;
void main() {
    float r = 1.0 / gl_FragCoord.w;
    o0 = vec4(v0.x * gl_FragCoord.w * r, v0.y * gl_FragCoord.w * r, v0.z * gl_FragCoord.w * r,
              v0.w * gl_FragCoord.w * r);
}
