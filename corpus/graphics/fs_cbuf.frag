#version 450
layout(set = 1, binding = 2, std140) uniform Bank1 { uvec4 c[1]; } b1;
layout(location = 0) noperspective in vec4 v0;
layout(location = 0) out vec4 o0;
void main() {
    uvec4 k = b1.c[0];
    o0 = vec4(uintBitsToFloat(k.x) * v0.x, uintBitsToFloat(k.y), uintBitsToFloat(k.z), uintBitsToFloat(k.w));
}
