#version 450
layout(set = 0, binding = 3, std140) uniform Bank2 { uvec4 c[1]; } b2;
layout(location = 0) in vec4 a0;
layout(location = 0) flat out vec4 v0;
void main() {
    float inst = float(uint(gl_InstanceIndex));
    float vid = float(uint(gl_VertexIndex));
    gl_Position = vec4(fma(inst, uintBitsToFloat(b2.c[0].x), a0.x), a0.y, a0.z, a0.w);
    v0 = vec4(vid * uintBitsToFloat(b2.c[0].y), inst * 0.5, 0.0, 1.0);
}
