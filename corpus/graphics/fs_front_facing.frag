#version 450
layout(location = 0) flat in vec4 v0;
layout(location = 0) out vec4 o0;
void main() {
    uint f = gl_FrontFacing ? 0xffffffffu : 0u;
    o0 = vec4(uintBitsToFloat(floatBitsToUint(v0.x) | f), v0.y, v0.z, v0.w);
}
